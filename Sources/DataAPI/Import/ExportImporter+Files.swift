import JSON

extension ExportImporter {
    /// Points here the `_File` objects an earlier run imported without their bytes (they kept
    /// their old url) whose bytes this run brought into the store: an import run again after an
    /// interruption leaves every file it has the bytes of served here.
    func repointImportedFiles(_ objects: [StoredObject]) async throws {
        guard let provider = fileBytes?.store.provider.name else { return }
        // Only an adopted file's url changed; one left on its old url matches what is stored.
        let adopted = objects.filter { $0.fields["provider"] == .string(provider) }
        guard !adopted.isEmpty else { return }
        let byId = Dictionary(adopted.map { ($0.objectId, $0) }, uniquingKeysWith: { first, _ in first })
        for old in try await storage.fetch("_File", ids: Array(byId.keys)) {
            guard let new = byId[old.objectId], new.fields["key"] == old.fields["key"],
                new.fields["url"] != old.fields["url"]
            else { continue }
            var changes = ObjectChanges()
            for field in ["url", "provider", "bucket", "metaData"] {
                if let value = new.fields[field] { changes.fields[field] = .set(value) }
            }
            _ = try await storage.update("_File", id: old.objectId, changes: changes, condition: nil, check: nil)
        }
    }
}
