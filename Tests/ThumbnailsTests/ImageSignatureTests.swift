import Testing
import Thumbnails

@Suite struct ImageSignatureTests {
    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46, 0, 1], true),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D], true),
        (Array("GIF89a......".utf8), true), (Array("RIFF....WEBP".utf8), true), (Array("....ftypheic".utf8), true),
        (Array("<svg xmlns=\"".utf8), false), (Array("<html><body>".utf8), false), (Array("PK\u{3}\u{4}........".utf8), false),
        ([0xFF, 0xD8], false),
    ] as [([UInt8], Bool)])
    func imageSignaturesAreReadFromTheFirstBytes(head: [UInt8], isImage: Bool) {
        #expect(ImageSignature.matches(head) == isImage)
    }
}
