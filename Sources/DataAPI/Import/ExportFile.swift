import JSON

/// What one file of an export holds, told from its name (and its first line).
///
/// LeanCloud's console export is one `<Class>.<n>.jsonl` per class and chunk, whose first line
/// may be `#filetype:JSON-streaming {"type":"Class","class":"<Class>"}`; its schema export is
/// `<Class>_schema.json`, `_permissions.json`, `_indexes.json` or `_all.json`; Relation members
/// come as Parse's `_Join:<field>:<OwnerClass>` files of `{"owningId","relatedId"}` lines (or, as
/// LeanCloud's console imports them, `owningId,relatedId` CSV lines in a `.csv` file of that name).
enum ExportFile: Equatable {
    /// Objects of a class, one per line (or a JSON array, or `{"results": [...]}`).
    case objects(className: String)
    /// Members of a Relation field of `ownerClass`.
    case relation(ownerClass: String, field: String)
    /// A schema file of a class.
    case schema(className: String)
    /// Not part of an export (a README, a CSV file, a directory listing): the reason.
    case other(reason: String)

    /// What the file named `path` holds (its directories don't matter).
    init(path: String) {
        var name = String(path.split(separator: "/").last ?? "")
        for suffix in ["_schema.json", "_permissions.json", "_indexes.json", "_all.json"] where name.hasSuffix(suffix) {
            let className = String(name.dropLast(suffix.count))
            self = Names.isValidClassName(className) ? .schema(className: className) : .other(reason: "not a class name")
            return
        }
        // CSV only for relation members (LeanCloud's console takes `owningId,relatedId` pairs).
        if name.hasSuffix(".csv"), !name.hasPrefix("_Join:") {
            self = .other(reason: "CSV files are not read: export the class as JSON")
            return
        }
        for suffix in [".jsonl", ".json", ".csv"] where name.hasSuffix(suffix) { name = String(name.dropLast(suffix.count)) }
        // `<Class>.0`, `<Class>.1`, ...: the chunks of one class.
        if let dot = name.lastIndex(of: "."), !name[name.index(after: dot)...].isEmpty,
            name[name.index(after: dot)...].allSatisfy(\.isNumber)
        {
            name = String(name[..<dot])
        }
        if name.hasPrefix("_Join:") {
            let parts = name.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 3, Names.isValidFieldName(String(parts[1])), Names.isValidClassName(String(parts[2])) {
                self = .relation(ownerClass: String(parts[2]), field: String(parts[1]))
            } else {
                self = .other(reason: "a _Join file is named _Join:<field>:<OwnerClass>")
            }
            return
        }
        self = Names.isValidClassName(name) ? .objects(className: name) : .other(reason: "not a class name")
    }

    /// The class a `#filetype:` header line names, if `line` is one.
    static func headerClass(_ line: ArraySlice<UInt8>) -> String? {
        guard line.first == UInt8(ascii: "#") else { return nil }
        guard let brace = line.firstIndex(of: UInt8(ascii: "{")),
            let header = try? JSONValue(parsing: line[brace...]), case .string(let name)? = header["class"],
            Names.isValidClassName(name)
        else { return nil }
        return name
    }
}
