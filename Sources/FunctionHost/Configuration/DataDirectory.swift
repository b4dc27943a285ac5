import Foundation

/// The modes of what a data directory holds: the master key (`keys.json`) and the SQLite
/// database are the operator's alone, 0600 in a 0700 directory. Modes left by older versions
/// (0644 files, a 0755 directory any local account could read) are narrowed at every start.
public enum DataDirectory {
    /// Creates the directory as 0700, or narrows an existing one to 0700.
    public static func prepare(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
    }

    /// Narrows a file to 0600 when it exists.
    public static func restrict(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// Readies a SQLite database's files before it opens: a new database starts as an empty 0600
    /// file (SQLite gives its journal and WAL files the database file's mode), an existing one
    /// and its companions are narrowed to 0600.
    static func prepareDatabase(at path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { try restrict(path + suffix) }
    }
}
