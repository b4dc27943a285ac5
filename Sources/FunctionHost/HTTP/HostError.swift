import CloudQueue
import DataAPI
import Hooks
import Leaderboards
public import Hummingbird
import Thumbnails

/// An error answered to the client as LeanCloud does: an HTTP status and `{"code", "error"}`.
///
/// Every error that leaves a route is turned into one of these in one place,
/// `HostError.init(mapping:)`; anything unexpected becomes a 500 whose details stay in the log.
public struct HostError: Error, Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The LeanCloud error code.
    public var code: Int
    /// The message for the client.
    public var message: String
    /// Seconds the client should wait before trying again (`Retry-After`), for 429s.
    public var retryAfter: Int?

    /// Creates an error response.
    public init(status: HTTPResponse.Status, code: Int, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// 401 `{"code":401,"error":"Unauthorized."}`, what every LeanCloud service answers.
    public static let unauthorized = HostError(status: .unauthorized, code: 401, message: "Unauthorized.")

    /// 403 for a web page whose origin the app's list leaves out, in LeanCloud's words (the code
    /// Valine and other web apps show as "check your security domains").
    public static let originRefused = HostError(
        status: .forbidden, code: 403, message: "Access denied by api domain white list, Please check your security domain.")

    /// The client-facing form of any error thrown while serving a request; nil for errors that
    /// are not the client's business (those become a generic 500).
    init?(mapping error: any Error) {
        switch error {
        case let error as HostError:
            self = error
        case let error as CloudError:
            self.init(status: error.status, code: error.code, message: error.message)
        case let error as CloudQueueError:
            self.init(status: Self.status(for: error.kind), code: error.code, message: error.message)
        case let error as LeaderboardError:
            self.init(status: Self.status(for: error.kind), code: error.code, message: error.message)
        case let error as HookError:
            self.init(status: Self.status(for: error), code: error.code, message: error.message)
        case let error as DataAPIError where error.code.isHostFailure:
            // The disk, an import, the configuration: the operator's business, told by the log.
            return nil
        case let error as DataAPIError:
            self.init(status: Self.status(for: error.code), code: error.code.rawValue, message: error.message)
        case let error as ThumbnailError:
            // Qiniu's answers: the HTTP status is the code too; the server's own disk is logged.
            guard let status = Self.status(for: error.kind) else { return nil }
            self.init(status: status, code: status.code, message: error.message)
        case let error as JSONSyntaxError:
            self.init(mapping: DataAPIError(error))
        case let error as any HTTPResponseError:
            let status = error.status
            let message: String
            switch status {
            case .notFound: message = "Not found."
            case .contentTooLarge: message = "The request body is too large."
            case .methodNotAllowed: message = "Method not allowed."
            default: message = status.reasonPhrase
            }
            self.init(status: status, code: status.code, message: message)
        default:
            return nil
        }
    }

    /// A hook's stop: a refused login is unauthorized, whatever the hook threw; a hook past its
    /// deadline is 503 (LeanCloud's 141); else the status the hook's code asked for, or 400.
    private static func status(for error: HookError) -> HTTPResponse.Status {
        if error.hook == .onLogin { return .unauthorized }
        if error.reason == .timedOut { return .serviceUnavailable }
        return error.requestedStatus.map { HTTPResponse.Status(code: $0) } ?? .badRequest
    }

    /// The Cloud Queue's kinds of failure: a duplicate uniqueId is a bad request (code 137),
    /// as a duplicate unique value is in the data API.
    private static func status(for kind: CloudQueueError.Kind) -> HTTPResponse.Status {
        switch kind {
        case .badRequest, .duplicate: .badRequest
        case .notFound: .notFound
        case .unauthorized: .unauthorized
        case .tooMany: .tooManyRequests
        case .storage: .internalServerError
        }
    }

    /// The leaderboards' kinds of failure: a name taken is a bad request (code 137), as a
    /// duplicate unique value is in the data API.
    private static func status(for kind: LeaderboardError.Kind) -> HTTPResponse.Status {
        switch kind {
        case .badRequest, .duplicate: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .storage: .internalServerError
        }
    }

    /// A thumbnail's failures: what the request or the image is, 400; what the server can't do
    /// now, 503; its own disk, nil (a 500).
    private static func status(for kind: ThumbnailError.Kind) -> HTTPResponse.Status? {
        switch kind {
        case .badParameters, .notAnImage, .imageTooLarge, .thumbnailTooLarge: .badRequest
        case .busy, .timedOut: .serviceUnavailable
        case .storage: nil
        }
    }

    private static func status(for code: DataAPIError.Code) -> HTTPResponse.Status {
        switch code {
        case .objectNotFound: return .notFound
        case .operationForbidden, .forbiddenByClassPermissions: return .forbidden
        case .codeRequestedTooOften, .tooManyRequests: return .tooManyRequests
        case .messageNotSent: return .badGateway
        case .storageFailure: return .internalServerError
        case .temporarilyUnavailable: return .serviceUnavailable
        // The server gave up on a statement past its budget: not the request's form, its cost.
        case .requestTimeout: return .serviceUnavailable
        case .fileTooLarge: return .contentTooLarge
        default: return .badRequest
        }
    }

    /// The answer's JSON: LeanCloud's `{"code","error"}`.
    var json: JSONValue { ["code": .int(Int64(code)), "error": .string(message)] }

    /// The JSON response.
    var response: Response {
        var response = JSONResponse(status: status, json).response
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
