/// MIME types from file names, for uploads that don't say theirs.
public enum MIMEType {
    /// The type of a name's extension; `application/octet-stream` when unknown or absent, as
    /// LeanCloud answers.
    public static func forName(_ name: String) -> String {
        byExtension[fileExtension(of: name)] ?? "application/octet-stream"
    }

    /// The extension of a name, lowercased, without its dot; empty when it has none.
    public static func fileExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    private static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "bmp": "image/bmp", "svg": "image/svg+xml", "ico": "image/x-icon", "heic": "image/heic", "tif": "image/tiff",
        "tiff": "image/tiff", "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "amr": "audio/amr", "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "avi": "video/x-msvideo", "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css",
        "csv": "text/csv", "md": "text/markdown", "js": "application/javascript", "json": "application/json",
        "xml": "application/xml", "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "tar": "application/x-tar", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation", "apk": "application/vnd.android.package-archive",
    ]
}
