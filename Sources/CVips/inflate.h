#ifndef FUNCTIONHOST_CVIPS_INFLATE_H
#define FUNCTIONHOST_CVIPS_INFLATE_H

#include <stddef.h>
#include <zlib.h>

// How many bytes the zlib stream `in` (`length` bytes) inflates to, counted without keeping
// them (a 16 KB buffer reused); the count stops once it is past `limit`, so a bomb costs at most
// `limit` bytes of inflating. -1 when the stream is corrupt.
static inline long long fh_inflated_size(const void *in, size_t length, long long limit) {
    z_stream stream = {0};
    if (inflateInit(&stream) != Z_OK) return -1;
    unsigned char out[16384];
    long long total = 0;
    stream.next_in = (Bytef *)in;
    stream.avail_in = (uInt)length;
    int result = Z_OK;
    while (result == Z_OK && total <= limit) {
        stream.next_out = out;
        stream.avail_out = sizeof out;
        result = inflate(&stream, Z_NO_FLUSH);
        total += (long long)(sizeof out - stream.avail_out);
        // No more input and no more output: a stream cut short (libpng inflates what there is).
        if (result == Z_OK && stream.avail_in == 0 && stream.avail_out == sizeof out) break;
    }
    inflateEnd(&stream);
    if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) return -1;
    return total;
}

#endif
