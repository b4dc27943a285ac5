import JSON

/// The ordered `Class/objectId` entries a search pages through: all in memory for a first
/// page, or a scroll's, whose chunk rows are read one at a time as a page reaches them (a page
/// deep in a scroll reads the head and the chunks it covers, never the whole window).
struct SearchEntries {
    /// How many entries there are.
    let count: Int
    /// Where each chunk starts, ascending from 0.
    private let starts: [Int]
    /// The chunks read so far, by number.
    private var chunks: [Int: [String]]
    /// The scroll the other chunks are read from (nil when all are in memory).
    private let source: (scrolls: SearchScrolls, sid: String, className: String)?

    /// How many chunks hold the entries.
    var chunkCount: Int { starts.count }

    /// Entries held in memory.
    init(_ entries: [String]) {
        count = entries.count
        starts = [0]
        chunks = [0: entries]
        source = nil
    }

    /// A scroll's entries: `first` is its head's chunk as stored; `className` is the one class
    /// its bare ids are of (empty when each entry names its class).
    init(scrolls: SearchScrolls, sid: String, className: String, starts: [Int], count: Int, first: JSONValue?) {
        self.count = count
        self.starts = starts.isEmpty ? [0] : starts
        self.source = (scrolls, sid, className)
        self.chunks = [:]
        self.chunks[0] = Self.decoded(first, className: className)
    }

    /// The entries in `range` (clamped to the entries there are), reading the chunks it covers.
    ///
    /// - Throws: `SearchScrolls.unknown` when a chunk is gone (the scroll ended meanwhile).
    mutating func slice(_ range: Range<Int>) async throws -> [String] {
        let range = range.clamped(to: 0..<count)
        var result: [String] = []
        var position = range.lowerBound
        while position < range.upperBound {
            let index = (starts.lastIndex(where: { $0 <= position }) ?? 0)
            let chunk = try await loaded(index)
            let offset = position - starts[index]
            guard offset < chunk.count else { throw SearchScrolls.unknown }
            let taken = chunk[offset..<min(chunk.count, offset + range.upperBound - position)]
            result += taken
            position += taken.count
        }
        return result
    }

    /// Chunk `index`, read once.
    private mutating func loaded(_ index: Int) async throws -> [String] {
        if let chunk = chunks[index] { return chunk }
        guard let source else { throw SearchScrolls.unknown }
        let chunk = Self.decoded(try await source.scrolls.chunk(source.sid, index), className: source.className)
        chunks[index] = chunk
        return chunk
    }

    /// Stored ids as entries: bare ids get their class back.
    private static func decoded(_ value: JSONValue?, className: String) -> [String] {
        guard case .array(let items)? = value else { return [] }
        let ids = items.compactMap(\.stringValue)
        return className.isEmpty ? ids : ids.map { className + "/" + $0 }
    }
}
