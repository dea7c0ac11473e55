import Store

/// A test double that passes every call to `inner` except the ones it declares itself: a double names only the
/// calls it steers, gates or breaks.
public protocol ForwardingFileSystem: FileSystem {
    var inner: FileSystem { get }
}

extension ForwardingFileSystem {
    public func openForAppend(_ path: String) throws(IOError) -> Int32 { try inner.openForAppend(path) }
    public func openForWrite(_ path: String) throws(IOError) -> Int32 { try inner.openForWrite(path) }
    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int { try inner.write(fd, bytes, path: path) }
    public func fsync(_ fd: Int32, path: String) throws(IOError) { try inner.fsync(fd, path: path) }
    public func close(_ fd: Int32) { inner.close(fd) }
    public func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool {
        try inner.reserve(fd, from: offset, count: count, path: path)
    }
    public func startWriteback(_ fd: Int32) { inner.startWriteback(fd) }
    public func rename(_ from: String, _ to: String) throws(IOError) { try inner.rename(from, to) }
    public func remove(_ path: String) throws(IOError) { try inner.remove(path) }
    public func fsyncDirectory(_ path: String) throws(IOError) { try inner.fsyncDirectory(path) }
    public func read(_ path: String) throws(IOError) -> [UInt8] { try inner.read(path) }
    public func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError) {
        try inner.readChunks(path, chunkSize: chunkSize, body)
    }
    public func list(_ directory: String) throws(IOError) -> [String] { try inner.list(directory) }
    public func truncate(_ path: String, to size: Int) throws(IOError) { try inner.truncate(path, to: size) }
    public func createDirectory(_ path: String) throws(IOError) { try inner.createDirectory(path) }
    public func size(_ path: String) -> Int? { inner.size(path) }
}
