import Foundation

/// Writes each line with one `write(2)` so lines from different threads never interleave.
public struct StandardErrorSink: LogSink {
    public init() {}

    public func write(_ line: [UInt8]) {
        line.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(2, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
