internal import CZlib

/// The decompressed bytes of a gzip stream (several concatenated members are read as one, as
/// `gzip -d` does).
public final class GzipBytes: ByteSource {
    private let source: any ByteSource
    private var stream = z_stream()
    private var input: [UInt8] = []
    private var inputOffset = 0
    private var finished = false
    /// Whether a member has begun and not ended: the input must not end there.
    private var insideMember = false
    private let chunkSize = 1 << 20

    /// Decompresses what `source` yields.
    public init(_ source: any ByteSource) throws {
        self.source = source
        // 16 + MAX_WBITS: a gzip header and trailer, not a raw zlib stream.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DataAPIError(.importFailure, "zlib could not start.")
        }
    }

    deinit { inflateEnd(&stream) }

    public func read() throws -> ArraySlice<UInt8>? {
        var output = [UInt8](repeating: 0, count: chunkSize)
        while !finished {
            if inputOffset == input.count {
                guard let next = try source.read() else {
                    finished = true
                    if insideMember { throw DataAPIError(.importFailure, "The gzip archive ends early: it is truncated.") }
                    break
                }
                input = Array(next)
                inputOffset = 0
            }
            let (status, produced, consumed) = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_in = inBuffer.baseAddress! + inputOffset
                    stream.avail_in = UInt32(inBuffer.count - inputOffset)
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (
                        status, outBuffer.count - Int(stream.avail_out), inBuffer.count - inputOffset - Int(stream.avail_in)
                    )
                }
            }
            inputOffset += consumed
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if consumed > 0 || produced > 0 { insideMember = true }
            case Z_STREAM_END:
                // Another member may follow.
                inflateReset(&stream)
                insideMember = false
            default:
                throw DataAPIError(.importFailure, "The archive is not valid gzip (zlib error \(status)).")
            }
            if produced > 0 { return output[..<produced] }
        }
        return nil
    }
}
