import DataAPI
import JSON

/// Engine apps' bundles, in the database beside their versions (class `_EngineBundle`, the master
/// key's alone), so every host sharing the database can run any version: a bundle's archive in
/// chunks of `chunkSize` characters (a 12 MB app is some 170), named by its hash and place. Never in the version record
/// itself, which listings read whole.
extension DeployStore {
    private static let bundles = "_EngineBundle"
    /// The characters of one chunk: its record stays under the 128 KB every object write is held
    /// to (`ObjectWrite.maxDocumentSize`), with room for its other fields.
    static let chunkSize = 96 * 1024

    /// Stores a bundle's archive under its hash; chunks stored already (the same bundle deployed
    /// again, or a host that stopped halfway) are kept.
    func store(_ bundle: EngineBundle, hash: String) async throws {
        let archive = bundle.archive
        let count = (archive.count + Self.chunkSize - 1) / Self.chunkSize
        for index in 0..<count {
            let part = archive[(index * Self.chunkSize)..<min(archive.count, (index + 1) * Self.chunkSize)]
            do {
                _ = try await data.create(
                    Self.bundles,
                    body: [
                        "bundle": .string(hash), "index": .int(Int64(index)), "count": .int(Int64(count)),
                        // The archive is ASCII (JSON of base64): any cut is a whole character.
                        "data": .string(String(decoding: part, as: UTF8.self)), "ACL": [:],
                    ], objectId: Self.chunkId(hash, index), caller: Self.caller)
            } catch let error as DataAPIError where error.code == .duplicateValue {
                continue
            }
        }
    }

    /// The bundle stored under `hash`, checked against it; nil when a chunk is missing.
    func bundle(_ hash: String) async throws -> EngineBundle? {
        var archive: [UInt8] = []
        var index = 0
        var count = 1
        while index < count {
            guard let chunk = try await records(Self.bundles, where: ["objectId": .string(Self.chunkId(hash, index))]).first,
                let text = chunk.fields["data"]?.stringValue, let total = chunk.fields["count"]?.intValue
            else { return nil }
            count = Int(total)
            archive.append(contentsOf: text.utf8)
            index += 1
        }
        let bundle = try EngineBundle(archive: archive)
        // What comes back is what was deployed, or nothing runs.
        guard bundle.hash == hash else { return nil }
        return bundle
    }

    private static func chunkId(_ hash: String, _ index: Int) -> String {
        "\(hash.prefix(32))x\(index)"
    }
}
