import JSON

/// The tokens of a CQL statement.
enum CQLToken: Equatable {
    case word(String)
    case string(String)
    case number(JSONValue)
    case symbol(String)
    case placeholder
}

/// Splits CQL text into tokens: words, quoted strings, numbers, `?`, punctuation and operators.
enum CQLTokenizer {
    static func tokens(_ text: String) throws(DataAPIError) -> [CQLToken] {
        let chars = Array(text.unicodeScalars)
        var tokens: [CQLToken] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.properties.isWhitespace {
                i += 1
            } else if c == "'" || c == "\"" {
                var value = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == c {
                        // A doubled quote stands for the quote itself.
                        if i + 1 < chars.count, chars[i + 1] == c {
                            value.unicodeScalars.append(c)
                            i += 2
                            continue
                        }
                        closed = true
                        i += 1
                        break
                    }
                    value.unicodeScalars.append(chars[i])
                    i += 1
                }
                guard closed else { throw CQLParser.syntaxError("unterminated string") }
                tokens.append(.string(value))
            } else if c.properties.numericType != nil && c.isASCII
                || (c == "-" && i + 1 < chars.count && chars[i + 1].isASCII && chars[i + 1].properties.numericType != nil
                    && !(tokens.last.map(isOperand) ?? false))
            {
                var text = String(c)
                i += 1
                while i < chars.count, chars[i].isASCII,
                    chars[i].properties.numericType != nil || chars[i] == "." || chars[i] == "e" || chars[i] == "E"
                {
                    text.unicodeScalars.append(chars[i])
                    i += 1
                }
                if let int = Int64(text) {
                    tokens.append(.number(.int(int)))
                } else if let double = Double(text) {
                    tokens.append(.number(.double(double)))
                } else {
                    throw CQLParser.syntaxError("invalid number \(text)")
                }
            } else if c.properties.isAlphabetic || c == "_" {
                var word = ""
                while i < chars.count, chars[i].properties.isAlphabetic || chars[i] == "_" || chars[i] == "."
                    || (chars[i].isASCII && chars[i].properties.numericType != nil)
                {
                    word.unicodeScalars.append(chars[i])
                    i += 1
                }
                tokens.append(.word(word))
            } else if c == "?" {
                tokens.append(.placeholder)
                i += 1
            } else {
                let two = i + 1 < chars.count ? String(c) + String(chars[i + 1]) : ""
                if ["<=", ">=", "!=", "<>"].contains(two) {
                    tokens.append(.symbol(two == "<>" ? "!=" : two))
                    i += 2
                } else if "=<>(),*[]-".unicodeScalars.contains(c) {
                    // A `-` not starting a number is REST's descending mark in `order by -key`.
                    tokens.append(.symbol(String(c)))
                    i += 1
                } else {
                    throw CQLParser.syntaxError("unexpected character '\(c)'")
                }
            }
        }
        return tokens
    }

    private static func isOperand(_ token: CQLToken) -> Bool {
        switch token {
        case .number, .string, .placeholder: return true
        case .word(let w): return !["and", "or", "not", "where", "in", "limit", "by", "select"].contains(w.lowercased())
        case .symbol(let s): return s == ")" || s == "]"
        }
    }
}
