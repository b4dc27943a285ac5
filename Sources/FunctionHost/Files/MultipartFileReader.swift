import DataAPI
import Foundation
import Hummingbird
import NIOCore

/// Reads a `multipart/form-data` body as it arrives and writes its file part's bytes to a file:
/// the form uploads of the SDKs' `qcloud` and `qiniu` uploaders. Only a delimiter's length of
/// bytes is held back between chunks, so a large file never sits whole in memory. The other
/// parts (`op`, `token`, `key`, ...) are read past: the upload's token is in its path.
struct MultipartFileReader: Sendable {
    /// `CRLF--boundary`: what ends every part.
    private let delimiter: [UInt8]

    /// The most a part's headers may take.
    static let headerLimit = 16 * 1024
    /// The most the parts besides the file may take together: a token's holder can't stream
    /// without end past the file-size limit.
    static let otherPartsLimit = 64 * 1024

    /// Where the reader is in the body.
    private enum State {
        case preamble, afterDelimiter, headers
        case content(isFile: Bool)
        case done
    }

    /// A reader for the parts between `boundary`s.
    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// The boundary a `multipart/form-data` content type names; nil for any other type.
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            // RFC 2046 caps a boundary at 70 characters.
            return value.isEmpty || value.utf8.count > 70 ? nil : value
        }
        return nil
    }

    /// Copies the first file part of `body` to `writer`: the part with a `filename`, or named
    /// `file` / `fileContent` (qiniu's and COS's field names). 400 when there is none or the
    /// body ends before its closing delimiter.
    func copyFile(from body: RequestBody, to writer: FileBytesWriter) async throws {
        // A CRLF in front lets the first delimiter, at the very start, be found like the others.
        var pending: [UInt8] = [13, 10]
        var state = State.preamble
        var copied = false
        var skipped = 0
        for try await buffer in body {
            pending.append(contentsOf: buffer.readableBytesView)
            try await advance(&pending, &state, copied: &copied, skipped: &skipped, writer: writer)
        }
        guard case .done = state, copied else {
            throw DataAPIError(.badParameters, "The form upload has no complete file part.")
        }
    }

    /// Consumes what `pending` holds, as far as it can be read without the next chunk.
    private func advance(
        _ pending: inout [UInt8], _ state: inout State, copied: inout Bool, skipped: inout Int, writer: FileBytesWriter
    ) async throws {
        while true {
            switch state {
            case .preamble, .content:
                var isFile = false
                if case .content(let file) = state { isFile = file }
                if let end = Self.index(of: delimiter, in: pending) {
                    if isFile {
                        try await Self.write(pending, upTo: end, to: writer)
                        copied = true
                    } else {
                        try Self.skip(end, total: &skipped)
                    }
                    pending.removeFirst(end + delimiter.count)
                    state = .afterDelimiter
                    continue
                }
                // Everything but what could be the start of a delimiter is content.
                let cut = pending.count - (delimiter.count - 1)
                guard cut > 0 else { return }
                if isFile { try await Self.write(pending, upTo: cut, to: writer) } else { try Self.skip(cut, total: &skipped) }
                pending.removeFirst(cut)
                return
            case .afterDelimiter:
                guard pending.count >= 2 else { return }
                if pending[0] == UInt8(ascii: "-"), pending[1] == UInt8(ascii: "-") {
                    state = .done
                    continue
                }
                guard pending[0] == 13, pending[1] == 10 else {
                    throw DataAPIError(.badParameters, "Malformed multipart body.")
                }
                pending.removeFirst(2)
                state = .headers
            case .headers:
                // An empty header block is a CRLF straight away.
                let headersEnd: Int
                if pending.count >= 2, pending[0] == 13, pending[1] == 10 {
                    headersEnd = 0
                    pending.removeFirst(2)
                } else if let end = Self.index(of: Array("\r\n\r\n".utf8), in: pending) {
                    headersEnd = end
                } else {
                    guard pending.count <= Self.headerLimit else {
                        throw DataAPIError(.badParameters, "A multipart part's headers are too long.")
                    }
                    return
                }
                let headers = String(decoding: pending[0..<headersEnd], as: UTF8.self).lowercased()
                if headersEnd > 0 { pending.removeFirst(headersEnd + 4) }
                state = .content(isFile: !copied && Self.isFilePart(headers))
            case .done:
                // The epilogue is read past, and counted, like any other part.
                try Self.skip(pending.count, total: &skipped)
                pending.removeAll()
                return
            }
        }
    }

    /// Whether a part's (lower-cased) headers describe the file.
    private static func isFilePart(_ headers: String) -> Bool {
        guard let disposition = headers.split(separator: "\r\n").first(where: { $0.hasPrefix("content-disposition:") }) else {
            return false
        }
        if disposition.contains("filename=") { return true }
        return ["name=\"file\"", "name=\"filecontent\""].contains { disposition.contains($0) }
    }

    /// Counts bytes read past outside the file, up to `otherPartsLimit`.
    private static func skip(_ count: Int, total: inout Int) throws {
        total += count
        guard total <= otherPartsLimit else {
            throw DataAPIError(.badParameters, "The form upload's other parts are too large.")
        }
    }

    /// Writes the first `end` bytes to the file.
    private static func write(_ bytes: [UInt8], upTo end: Int, to writer: FileBytesWriter) async throws {
        guard end > 0 else { return }
        try await writer.write(ByteBuffer(bytes: bytes[0..<end]))
    }

    /// Where `needle` first occurs in `haystack`.
    private static func index(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
