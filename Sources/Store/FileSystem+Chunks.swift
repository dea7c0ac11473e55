#if canImport(Glibc)
import Glibc
#endif

extension FileSystem {
    /// Reads the whole file and slices it: correct for any file system, but holds the file. The real one streams.
    public func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError) {
        let bytes = try read(path)
        let step = max(1, chunkSize)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = offset + min(step, raw.count - offset)
                guard body(UnsafeRawBufferPointer(rebasing: raw[offset..<end])) else { return }
                offset = end
            }
        }
    }
}

extension PosixFileSystem {
    /// One buffer of `chunkSize` bytes, reused for every `read(2)`: reading a file of any size holds one chunk.
    public func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOError(call: "open", path: path, code: errno) }
        defer { _ = Glibc.close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunkSize), alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw IOError(call: "read", path: path, code: errno)
            }
            if count == 0 { return }
            guard body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return }
        }
    }
}
