import API
import Engine
import Foundation
import HTTPServer

/// The thin command line: pick a subcommand, hand over, exit with its code.
let arguments = Array(CommandLine.arguments.dropFirst())
exit(CommandLineInterface.run(arguments: arguments, environment: ProcessInfo.processInfo.environment))
