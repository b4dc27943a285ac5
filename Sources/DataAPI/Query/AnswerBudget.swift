public import JSON
import Synchronization

/// What an answer has spent of its `AnswerLimits`, counted while it is read and built so a
/// refusal comes before the memory is spent. One budget is shared by the reads of one request:
/// a `/batch` runs all its items under one (`sharing`), so 500 reads can't each spend the whole.
///
/// Two meters, each held to `maxBytes`: the stored documents the engines read for the answer
/// (charged row by row as they arrive, so an engine stops reading when it is spent), and the
/// answer built from them (charged by `IncludeResolver`, where includes repeat objects).
package final class AnswerBudget: Sendable {
    /// The budget the reads of the running request share, when it set one.
    @TaskLocal package static var current: AnswerBudget?

    private let limits: AnswerLimits
    private let spent = Mutex(AnswerWeight.zero)
    private let read = Mutex(AnswerWeight.zero)

    /// A fresh budget of `limits`.
    package init(_ limits: AnswerLimits) {
        self.limits = limits
    }

    /// The budget a read charges: the request's shared one, else a fresh one for this answer.
    package static func forAnswer(_ limits: AnswerLimits) -> AnswerBudget {
        current ?? AnswerBudget(limits)
    }

    /// Runs `body` with one budget of `limits` for every read inside it.
    package static func sharing<T: Sendable>(
        _ limits: AnswerLimits, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(AnswerBudget(limits), operation: body)
    }

    /// Whether `weight` more would still fit, without spending it: a level of includes is
    /// checked before its objects are embedded (each level's total is at most the answer's).
    package func check(_ weight: AnswerWeight) throws(DataAPIError) {
        let total = spent.withLock { $0 } + weight
        try refuse(past: total)
    }

    /// Spends `weight`, or refuses it when the answer would pass its limits.
    package func charge(_ weight: AnswerWeight) throws(DataAPIError) {
        let refusal = spent.withLock { (spent: inout AnswerWeight) -> DataAPIError? in
            let total = spent + weight
            do throws(DataAPIError) {
                try refuse(past: total)
            } catch {
                return error
            }
            spent = total
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Spends one stored row read for the answer, its document of `documentBytes` and its id
    /// and dates, or refuses it when the rows read would pass `maxBytes`: the engine then stops
    /// reading, and the answer is refused with the same error as one too large to build.
    package func chargeRow(documentBytes: Int) throws(DataAPIError) {
        let refused = read.withLock { (read: inout AnswerWeight) -> Bool in
            let total = read + .row(documentBytes: documentBytes)
            guard total.bytes <= limits.maxBytes else { return true }
            read = total
            return false
        }
        if refused { throw tooLarge }
    }

    /// Gives back what rows read by an attempt that failed were charged: the read is run again
    /// (a lost connection), and its rows are charged again as they arrive.
    package func refund(_ rows: AnswerWeight) {
        read.withLock { read in read = AnswerWeight(objects: read.objects - rows.objects, bytes: read.bytes - rows.bytes) }
    }

    /// The rows the engines have read for the answer so far (`objects`), and their bytes.
    package var rowsRead: AnswerWeight {
        read.withLock { $0 }
    }

    private func refuse(past total: AnswerWeight) throws(DataAPIError) {
        guard total.objects <= limits.maxIncludedObjects, total.bytes <= limits.maxBytes else {
            throw tooLarge
        }
    }

    private var tooLarge: DataAPIError {
        DataAPIError(
            .invalidQuery,
            "The answer is too large: it may include at most \(limits.maxIncludedObjects) objects and carry "
                + "\(limits.maxBytes) bytes; include fewer paths or ask for fewer objects.")
    }
}

/// What an answer carries: objects included, and bytes of JSON. Sums saturate, so an
/// amplification that would overflow still compares as too large.
package struct AnswerWeight: Sendable, Hashable {
    /// Objects embedded by includes.
    package var objects: Int
    /// Bytes of JSON, estimated.
    package var bytes: Int

    /// Nothing.
    package static let zero = AnswerWeight(objects: 0, bytes: 0)

    /// An object's `objectId`, `createdAt` and `updatedAt`, with their keys, as JSON.
    static let rowFields = 100

    /// One stored row read: its document and its id and dates.
    package static func row(documentBytes: Int) -> AnswerWeight {
        AnswerWeight(objects: 1, bytes: saturating(documentBytes, rowFields))
    }

    /// The sum, saturating at `Int.max`.
    package static func + (a: AnswerWeight, b: AnswerWeight) -> AnswerWeight {
        AnswerWeight(objects: saturating(a.objects, b.objects), bytes: saturating(a.bytes, b.bytes))
    }

    private static func saturating(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// The weight of an object's own fields: no included objects, its fields' estimated bytes.
    package static func fields(of object: StoredObject) -> AnswerWeight {
        var bytes = rowFields
        for (key, value) in object.fields { bytes = saturating(bytes, key.utf8.count + 4 + value.estimatedSize) }
        return AnswerWeight(objects: 0, bytes: bytes)
    }
}

extension JSONValue {
    /// About how many bytes this value's JSON text takes, found without writing it, and
    /// without recursion (stored documents may be nested deeper than requests).
    var estimatedSize: Int {
        var size = 0
        var pending: [JSONValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .null, .bool: size += 5
            case .int, .double: size += 20
            case .string(let s): size += s.utf8.count + 2
            case .array(let elements):
                size += 2 + elements.count
                pending.append(contentsOf: elements)
            case .object(let members):
                size += 2
                for (key, member) in members {
                    size += key.utf8.count + 4
                    pending.append(member)
                }
            }
        }
        return size
    }
}
