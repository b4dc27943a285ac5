internal import CZlib
import Foundation

/// Draws a captcha's text as a grayscale PNG: each character of `CaptchaFont` scaled to the
/// image, turned and shifted a little, the whole text bent by two waves, crossed by thin lines
/// and speckled. Strokes stay thicker and darker than the noise, so a person reads it at once;
/// no glyph sits where a template would find it.
///
/// Everything random comes from `seed`: an image drawn twice from one captcha is the same image,
/// so asking for it again gives an attacker nothing new to average.
struct CaptchaImage {
    let text: [Character]
    let width: Int
    let height: Int
    let seed: UInt64

    /// The PNG file.
    func png() throws -> [UInt8] {
        try Self.encodePNG(gray: draw(), width: width, height: height)
    }

    /// The pixels, row by row, 0 black to 255 white.
    func draw() -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var pixels = (0..<width * height).map { _ in UInt8(226 + random.next(below: 30)) }
        let layout = Layout(text: text, width: width, height: height, random: &random)
        // Each pixel samples the glyphs on a 3×3 grid: smooth edges even at the smallest sizes.
        let samples = [1.0 / 6, 0.5, 5.0 / 6]
        for y in 0..<height {
            for x in 0..<width {
                var covered = 0
                for dy in samples {
                    for dx in samples where layout.inked(x: Double(x) + dx, y: Double(y) + dy) { covered += 1 }
                }
                guard covered > 0 else { continue }
                let ink = Double(layout.inkLevel)
                let paper = Double(pixels[y * width + x])
                pixels[y * width + x] = UInt8(paper + (ink - paper) * Double(covered) / 9)
            }
        }
        drawNoise(&pixels, strokeWidth: layout.scale, random: &random)
        return pixels
    }

    /// Lines lighter and thinner than the strokes, and a speckle of dots.
    private func drawNoise(_ pixels: inout [UInt8], strokeWidth: Double, random: inout SplitMix64) {
        let lineWidth = max(0.5, strokeWidth * 0.25)
        for _ in 0..<3 {
            let base = Double(random.next(below: UInt64(height)))
            let amplitude = Double(height) * (0.1 + random.unit() * 0.25)
            let frequency = (1 + random.unit() * 2) * 2 * Double.pi / Double(width)
            let phase = random.unit() * 2 * Double.pi
            let shade = UInt8(140 + random.next(below: 50))
            for x in 0..<width {
                let center = base + amplitude * sin(frequency * Double(x) + phase)
                let top = max(0, Int((center - lineWidth).rounded(.up)))
                let bottom = min(height - 1, Int((center + lineWidth).rounded(.down)))
                guard top <= bottom else { continue }
                for y in top...bottom { pixels[y * width + x] = min(pixels[y * width + x], shade) }
            }
        }
        for _ in 0..<(width * height / 25) {
            let index = Int(random.next(below: UInt64(width * height)))
            pixels[index] = UInt8(random.next(below: 2) == 0 ? 120 + random.next(below: 60) : 255)
        }
    }

    /// Where each character lies, and the waves that bend them.
    private struct Layout {
        struct Placed {
            let character: Character
            let centerX: Double
            let centerY: Double
            let cosine: Double
            let sine: Double
        }

        let placed: [Placed]
        /// Image pixels per font pixel.
        let scale: Double
        let inkLevel: UInt8
        let waveX: (amplitude: Double, length: Double, phase: Double)
        let waveY: (amplitude: Double, length: Double, phase: Double)

        init(text: [Character], width: Int, height: Int, random: inout SplitMix64) {
            let margin = Double(width) * 0.06
            let cell = (Double(width) - 2 * margin) / Double(max(1, text.count))
            scale = min(cell / 6.2, Double(height) * 0.62 / Double(CaptchaFont.height))
            inkLevel = UInt8(20 + random.next(below: 50))
            var placed: [Placed] = []
            for (index, character) in text.enumerated() {
                let angle = (random.unit() - 0.5) * 0.36
                let centerX = margin + cell * (Double(index) + 0.5) + (random.unit() - 0.5) * cell * 0.2
                let slack = max(0, Double(height) / 2 - scale * Double(CaptchaFont.height) / 2 - 1)
                let centerY = Double(height) / 2 + (random.unit() - 0.5) * slack
                placed.append(Placed(character: character, centerX: centerX, centerY: centerY, cosine: cos(angle), sine: sin(angle)))
            }
            self.placed = placed
            waveX = (scale * 0.5, Double(height) * (0.8 + random.unit()), random.unit() * 2 * Double.pi)
            waveY = (scale * 0.45, Double(width) * (0.3 + random.unit() * 0.3), random.unit() * 2 * Double.pi)
        }

        private static let bolder: [(Double, Double)] = [(0, 0), (0.2, 0), (-0.2, 0), (0, 0.2), (0, -0.2)]

        /// Whether the image point (`x`, `y`) falls on a stroke.
        func inked(x: Double, y: Double) -> Bool {
            let u = x + waveX.amplitude * sin(2 * Double.pi * y / waveX.length + waveX.phase)
            let v = y + waveY.amplitude * sin(2 * Double.pi * x / waveY.length + waveY.phase)
            for glyph in placed {
                let dx = u - glyph.centerX
                let dy = v - glyph.centerY
                // Turned back by the glyph's angle, then into font pixels from its top left.
                let column = (dx * glyph.cosine + dy * glyph.sine) / scale + Double(CaptchaFont.width) / 2
                let row = (-dx * glyph.sine + dy * glyph.cosine) / scale + Double(CaptchaFont.height) / 2
                // Strokes a fifth of a font pixel bolder on each side: a 5×7 font is thin once bent.
                for (dc, dr) in Self.bolder {
                    let c = column + dc
                    let r = row + dr
                    if c >= 0, r >= 0, CaptchaFont.isInked(glyph.character, column: Int(c), row: Int(r)) { return true }
                }
            }
            return false
        }
    }

    /// An 8-bit grayscale PNG (color type 0) of `gray`, one zlib stream in one IDAT chunk.
    static func encodePNG(gray: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        // Each row starts with its filter type: 0, none.
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for row in 0..<height {
            raw.append(0)
            raw += gray[(row * width)..<((row + 1) * width)]
        }
        var compressedSize = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedSize))
        let status = compress2(&compressed, &compressedSize, raw, uLong(raw.count), Z_BEST_COMPRESSION)
        guard status == Z_OK else { throw DataAPIError(.badParameters, "The captcha image could not be compressed.") }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [8, 0, 0, 0, 0]  // bit depth 8, grayscale, deflate, adaptive filters, no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("IDAT", Array(compressed[..<Int(compressedSize)]))
        png += chunk("IEND", [])
        return png
    }

    /// A PNG chunk: length, type, data, and the CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return bigEndian(UInt32(data.count)) + typed + bigEndian(UInt32(crc))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// A small seeded generator (SplitMix64): the same seed draws the same image.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (the modulo's bias is immaterial for drawing).
    mutating func next(below bound: UInt64) -> UInt64 { next() % bound }

    /// A number in `0..<1`.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
