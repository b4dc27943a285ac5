public import Foundation

/// The SMS templates the operator wrote: one file per template, `NAME.txt` in a directory
/// (`templates/sms` in the data directory), read at each send so an edit applies at once.
/// LeanCloud kept them in its console; a client names one with `template` and can't write one.
public struct SMSTemplates: Sendable {
    /// Where the files are; nil: no templates (every `template` is refused with 604).
    public var directory: String?

    /// Templates read from `directory`.
    public init(directory: String?) {
        self.directory = directory
    }

    /// The template called `name`.
    ///
    /// - Throws: 604 when there is none: no such file, or a name that isn't one (letters,
    ///   digits, `_` and `-`, at most 64: never a path).
    public func template(named name: String) throws(DataAPIError) -> MessageTemplate {
        let notFound = DataAPIError(
            .smsTemplateNotFound, "SMS template '\(name.prefix(64))' not found: the operator writes it as templates/sms/NAME.txt.")
        guard let directory, Self.isName(name) else { throw notFound }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name + ".txt").path
        guard let text = Self.read(path) else { throw notFound }
        return MessageTemplate(text)
    }

    /// A file's text, without its final line break; nil if it is missing, unreadable, not
    /// UTF-8 or larger than `MessageTemplate.maxSize`.
    public static func read(_ path: String) -> String? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
            size.intValue <= MessageTemplate.maxSize,
            let data = FileManager.default.contents(atPath: path), data.count <= MessageTemplate.maxSize,
            var text = String(data: data, encoding: .utf8)
        else { return nil }
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }

    static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
    }
}
