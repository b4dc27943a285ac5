import CVips

/// libvips for the process: started once, on first use, with its memory bounds (`fh_vips_start`:
/// no operation cache, untrusted loaders refused).
package enum Vips {
    /// Whether libvips started; a `static let` runs its initializer once, whichever thread asks
    /// first, so no caller sees a half-started library.
    package static let started: Bool = fh_vips_start() == 0

    /// The most bytes libvips has held for pixels at once in this process since it started
    /// (its tracked allocations: every image buffer and tile cache goes through them).
    package static var pixelMemoryHighWater: Int {
        _ = started
        return Int(vips_tracked_get_mem_highwater())
    }

    /// Takes libvips' error text (process-wide, so another thumbnail's may be mixed in: it is
    /// logged, never answered) and clears it.
    package static func takeError() -> String {
        guard let text = vips_error_buffer() else { return "" }
        let message = String(cString: text)
        vips_error_clear()
        return message
    }
}
