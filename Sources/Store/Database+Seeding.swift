import Foundation
import Rules

extension Database {
    /// Starts a data directory from given users: one verified snapshot at `seq`, no log yet; a `Database` opened on
    /// it afterwards appends from `seq + 1`. For `specd reshard`, which moves users between directories offline
    /// with the store's own snapshot format rather than a second writer of it.
    public static func seed(
        directory: String, users: [ByteKey: UserContext], seq: UInt64, fileSystem: FileSystem = PosixFileSystem()
    ) throws(IOError) {
        try fileSystem.createDirectory(directory)
        let written = try SnapshotFile.write([UserTable(users: users)], seq: seq, directory: directory, fileSystem: fileSystem)
        try SnapshotFile.verify(written.path, seq: seq, users: written.users, fileSystem: fileSystem)
        try fileSystem.fsyncDirectory(directory)
    }
}
