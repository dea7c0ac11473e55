import API
import Engine
import Foundation
import HTTPServer

/// The thin command line: pick a subcommand, hand over, exit with its code.
let arguments = Array(CommandLine.arguments.dropFirst())
// First of all, before any thread starts: the daemon may run again with its allocator tuned (AllocatorTuning).
if CommandLineInterface.runsDaemon(arguments) { AllocatorTuning.reexecIfNeeded() }
exit(CommandLineInterface.run(arguments: arguments, environment: ProcessInfo.processInfo.environment))
