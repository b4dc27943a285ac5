/// Validation of base64 text, which `Bytes` values carry.
enum Base64 {
    static func isValid(_ text: String) -> Bool {
        var count = 0
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return false }
            case UInt8(ascii: "="):
                padding += 1
                if padding > 2 { return false }
            case 0x0A, 0x0D:
                continue
            default:
                return false
            }
            count += 1
        }
        return count % 4 == 0
    }
}
