import Foundation
import HTTPTypes

/// The headers that keep a stored file from running as a page of the API's own origin.
///
/// Anyone with the app key may upload a file of any type, and files are served from the API's
/// origin: an uploaded HTML page (or SVG, XML, JavaScript...) opened in a browser would run with
/// that origin, next to the SDKs' session tokens in its storage. So every file is answered with
/// `X-Content-Type-Options: nosniff` (no guessing HTML from bytes) and
/// `Content-Security-Policy: sandbox` (a unique origin, no scripts, even if a browser renders it);
/// and only types a browser shows without running anything are served inline, everything else
/// as `Content-Disposition: attachment`, which browsers download instead of opening. Pages
/// embedding a file (`<img>`, `<script>`, `<video>`) ignore the disposition, so apps still work.
enum FileContentHeaders {
    /// The passive types, beyond every `image/` type other than XML ones (SVG), `audio/` and
    /// `video/`. An allow-list: a type a browser can run that no list foresaw stays an attachment.
    static let inlineTypes: Set<String> = ["text/plain", "text/csv", "application/json"]

    /// The raster image types browsers show as images.
    static let imageTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/x-icon",
        "image/vnd.microsoft.icon", "image/heic", "image/heif", "image/tiff",
    ]

    /// Adds the file's type and the protective headers to `headers`.
    ///
    /// - Parameters:
    ///   - storedType: the type the file was uploaded with (the client's text).
    ///   - name: the file's name, for the download's name.
    static func apply(storedType: String?, name: String?, to headers: inout HTTPFields) {
        let type = normalized(storedType)
        headers[.contentType] = type ?? "application/octet-stream"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = "sandbox"
        if let type, isPassive(essence(type)) { return }
        headers[.contentDisposition] = disposition(name)
    }

    /// The type as served: its essence (`type/subtype`, lowercased) and its charset; nil unless
    /// the stored text is one well-formed type with well-formed `name=token` parameters (then the
    /// file is served as `application/octet-stream`, an attachment). Browsers read a header such
    /// as `image/png, text/html` as its last type, so the client's text is never sent as it came.
    static func normalized(_ stored: String?) -> String? {
        guard let stored else { return nil }
        let parts = stored.split(separator: ";", omittingEmptySubsequences: false)
        let essence = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
        let halves = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy(isToken) else { return nil }
        var charset: String?
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, isToken(pair[0]), isToken(pair[1]) else { return nil }
            if pair[0].lowercased() == "charset" { charset = pair[1] }
        }
        return charset.map { "\(essence); charset=\($0)" } ?? essence
    }

    /// The `type/subtype` part of a normalized type.
    static func essence(_ type: String) -> String {
        String(type.prefix { $0 != ";" })
    }

    /// Whether a browser opening this type only shows it.
    static func isPassive(_ essence: String) -> Bool {
        if inlineTypes.contains(essence) || imageTypes.contains(essence) { return true }
        return essence.hasPrefix("audio/") || essence.hasPrefix("video/")
    }

    /// `attachment`, with the file's name: ASCII letters, digits and `.-_` as they are in the
    /// plain `filename`, the whole name percent-encoded in `filename*` (RFC 6266).
    static func disposition(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "attachment" }
        let plain = String(name.unicodeScalars.map { isSafeNameScalar($0) ? Character($0) : "_" })
        var encoded = ""
        for byte in name.utf8 {
            if byte < 0x80, isSafeNameScalar(Unicode.Scalar(byte)) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return "attachment; filename=\"\(plain)\"; filename*=UTF-8''\(encoded)"
    }

    private static func isSafeNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar))
    }

    /// Whether text is an RFC 9110 token (quoted parameter values, which no SDK sends, are not).
    private static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.allSatisfy { character in
            guard let ascii = character.asciiValue, ascii > 0x20, ascii < 0x7F else { return false }
            return !"()<>@,;:\\\"/[]?={}".contains(character)
        }
    }
}

extension String {
    /// The string with zeros in front, up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
