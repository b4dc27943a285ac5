import Foundation
import JSON

extension VerificationCodes {
    /// Budgets of code guesses per hour, kept in the database (class `_GuessCounter`, the
    /// host's own) so every host sharing it counts together: one object per budget and hour,
    /// whose id is derived from both, so hosts that meet a new hour create the same object and
    /// the database lets only one of them. Taking from a budget is one conditional increment,
    /// which the engine runs in a transaction: concurrent guesses can't all pass a check they
    /// made before any of them was counted.
    ///
    /// An hour's budget starts full at the hour (a fixed window): an attacker gets at most two
    /// budgets' worth across one boundary, which the limits allow for.
    struct GuessCounters: Sendable {
        /// What a budget counts.
        enum Key: Sendable {
            /// Wrong codes from one client address.
            case client(String)
            /// Guesses at codes for `Purpose` that name no number, from anyone.
            case codeOnly(Purpose)

            var name: String {
                switch self {
                case .client(let address): "client|" + address
                case .codeOnly(let purpose): "code-only|" + purpose.rawValue
                }
            }
        }

        static let className = "_GuessCounter"
        /// How long a budget lasts.
        static let window: TimeInterval = 3600
        static let exhausted = DataAPIError(.invalidCode, "Too many wrong codes: try again later.")

        /// The codes whose clock, data and secret the counters use.
        let codes: VerificationCodes

        /// Takes one guess from the budget `key` has this hour, or throws 603 when it is spent.
        func take(_ key: Key, limit: Int) async throws {
            let (id, expiry) = record(of: key)
            // Two rounds settle every race: a create lost to another host's means the object now exists.
            for _ in 0..<2 {
                do {
                    _ = try await codes.data.update(
                        Self.className, id: id, body: ["count": ["__op": "Increment", "amount": 1]],
                        condition: try QueryPredicate(where: ["count": ["$lt": .int(Int64(limit))]]), caller: VerificationCodes.caller)
                    return
                } catch let error as DataAPIError where error.code == .conditionNotMatched {
                    throw Self.exhausted
                } catch let error as DataAPIError where error.code == .objectNotFound {
                    guard limit > 0 else { throw Self.exhausted }
                    do {
                        try await dropExpired()
                        _ = try await codes.data.create(
                            Self.className, body: ["count": 1, "expiresAt": .double(expiry), "ACL": [:]], objectId: id,
                            caller: VerificationCodes.caller)
                        return
                    } catch let error as DataAPIError where error.code == .duplicateValue {
                        continue
                    }
                }
            }
            throw Self.exhausted
        }

        /// Gives back a guess taken from `key`'s budget this hour (it turned out right).
        func giveBack(_ key: Key) async throws {
            let (id, _) = record(of: key)
            do {
                _ = try await codes.data.update(
                    Self.className, id: id, body: ["count": ["__op": "Increment", "amount": -1]],
                    condition: try QueryPredicate(where: ["count": ["$gt": 0]]), caller: VerificationCodes.caller)
            } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
                // The hour ended in between: the new budget owes nothing back.
            }
        }

        /// The id of `key`'s object this hour, and when it expires. The id is keyed with the
        /// codes' secret: the database holds no client address in clear.
        private func record(of key: Key) -> (id: String, expiresAt: Double) {
            let hour = (codes.now().timeIntervalSince1970 / Self.window).rounded(.down)
            let id = String(codes.secret.digest(of: "guesses|\(key.name)|\(Int(hour))").prefix(24))
            return (id, (hour + 1) * Self.window)
        }

        /// Budgets of past hours are deleted when a new one starts, a few at a time.
        private func dropExpired() async throws {
            guard try await codes.data.engines.production.classExists(Self.className) else { return }
            var query = ObjectQuery(className: Self.className, limit: 20)
            query.predicate = try QueryPredicate(where: ["expiresAt": ["$lte": .double(codes.now().timeIntervalSince1970)]])
            for old in try await codes.data.engines.production.find(query) {
                try await codes.data.delete(Self.className, id: old.objectId, caller: VerificationCodes.caller)
            }
        }
    }
}
