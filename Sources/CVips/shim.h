#ifndef FUNCTIONHOST_CVIPS_SHIM_H
#define FUNCTIONHOST_CVIPS_SHIM_H

#include <vips/vips.h>

// Swift imports no C variadic functions, and most of libvips' operations take their optional
// arguments as `name, value, ..., NULL`. These wrappers fix the arguments the thumbnails use.

// Starts libvips once for the process (VIPS_INIT is a macro Swift can't call) with its
// memory bounds: no operation cache (a thumbnail server never repeats an operation on the same
// image object, and cached images would keep pixels alive), no cached open files, one worker
// thread per pipeline (each thread holds its own strip buffers, as wide as the image; thumbnails
// run side by side in the gate's slots instead), and the loaders libvips marks untrusted
// (ImageMagick, PDF, SVG, FITS, MAT...) refused outright.
static inline int fh_vips_start(void) {
    if (vips_init("functionhost") != 0) return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_block_untrusted_set(TRUE);
    return 0;
}

// Opens an image for one top-to-bottom read: only the header is read now, the pixels as the
// pipeline pulls them (sequential access keeps a few lines in memory, never the whole image).
// `shrink` > 1 asks the JPEG loader to decode at 1/2, 1/4 or 1/8 of the size (pass 1 for others).
static inline VipsImage *fh_vips_open(VipsSource *source, int shrink) {
    // A file whose pixels stop short is an error, not an image padded with black.
    if (shrink > 1)
        return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED,
            "shrink", shrink, NULL);
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

// Opens a WebP for one read, decoded at `scale` of its size (libwebp scales while it decodes:
// its buffer is the scaled image's, not the original's).
static inline VipsImage *fh_vips_open_scaled(VipsSource *source, double scale) {
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED,
        "scale", scale, NULL);
}

// Averages blocks of hshrink columns, then of vshrink rows (either 1 for none), alpha
// premultiplied meanwhile (so transparent pixels' colour doesn't bleed into the edges), in the
// image's own band format. Horizontally first: every later stage then works on narrow rows.
static inline int fh_vips_preshrink(VipsImage *in, VipsImage **out, int hshrink, int vshrink) {
    VipsImage *t[5] = {NULL, NULL, NULL, NULL, NULL};
    VipsImage *current = in;
    int alpha = vips_image_hasalpha(in);
    int failed = 0;
    // Each step reads the one before (`current`) into its own slot of `t`; the first failure
    // skips the rest.
    if (alpha) {
        failed = vips_premultiply(current, &t[0], NULL);
        current = t[0];
    }
    if (!failed && hshrink > 1) {
        failed = vips_shrinkh(current, &t[1], hshrink, NULL);
        current = t[1];
    }
    if (!failed && vshrink > 1) {
        failed = vips_shrinkv(current, &t[2], vshrink, NULL);
        current = t[2];
    }
    if (!failed && alpha) {
        failed = vips_unpremultiply(current, &t[3], NULL);
        current = t[3];
    }
    if (!failed && alpha) {
        failed = vips_cast(current, &t[4], vips_image_get_format(in), NULL);
        current = t[4];
    }
    if (!failed) {
        g_object_ref(current);
        *out = current;
    }
    for (int i = 0; i < 5; i++)
        if (t[i]) g_object_unref(t[i]);
    return failed ? -1 : 0;
}

// Whether libvips turns the image into sRGB through floats (CMYK through its ICC profile).
static inline int fh_vips_is_cmyk(VipsImage *image) {
    return vips_image_get_interpretation(image) == VIPS_INTERPRETATION_CMYK;
}

// Resizes to exactly width x height (the caller keeps the aspect ratio), ignoring EXIF rotation.
static inline int fh_vips_resize(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_FORCE, "no_rotate", TRUE, NULL);
}

// Cuts a rectangle out.
static inline int fh_vips_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

// Puts an image with alpha on white, for formats without transparency (JPEG).
static inline int fh_vips_flatten_white(VipsImage *in, VipsImage **out) {
    VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
    int result = vips_flatten(in, out, "background", white, NULL);
    vips_area_unref(VIPS_AREA(white));
    return result;
}

// The savers, metadata stripped.
static inline int fh_vips_save_jpeg(VipsImage *in, const char *path, int quality, int interlace) {
    return vips_jpegsave(in, path, "Q", quality, "interlace", interlace, "strip", TRUE, NULL);
}
static inline int fh_vips_save_png(VipsImage *in, const char *path, int interlace) {
    return vips_pngsave(in, path, "interlace", interlace, "strip", TRUE, NULL);
}
static inline int fh_vips_save_webp(VipsImage *in, const char *path, int quality) {
    return vips_webpsave(in, path, "Q", quality, "strip", TRUE, NULL);
}
static inline int fh_vips_save_gif(VipsImage *in, const char *path) {
    return vips_gifsave(in, path, NULL);
}

// For tests: a width x height image of `bands` bands (3 RGB, 4 RGBA) whose pixels vary with x
// and y, made lazily (nothing is computed until it is saved).
static inline VipsImage *fh_vips_pattern(int width, int height, int bands) {
    VipsImage *xyz = NULL, *wrapped = NULL, *joined = NULL, *cast = NULL, *tagged = NULL;
    if (vips_xyz(&xyz, width, height, NULL) != 0) return NULL;
    int failed = vips_remainder_const1(xyz, &wrapped, 256, NULL);
    g_object_unref(xyz);
    if (failed) return NULL;
    // RGB: x, y and a constant; RGBA: x, y, x, y (an alpha that varies, so no encoder drops it).
    failed = bands == 4 ? vips_bandjoin2(wrapped, wrapped, &joined, NULL) : vips_bandjoin_const1(wrapped, &joined, 128, NULL);
    g_object_unref(wrapped);
    if (failed) return NULL;
    failed = vips_cast(joined, &cast, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(joined);
    if (failed) return NULL;
    failed = vips_copy(cast, &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(cast);
    return failed ? NULL : tagged;
}

// For tests: as fh_vips_pattern, of any bands (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA or CMYK),
// 8 or 16 bits a band (`deep`), tagged CMYK with `cmyk`.
static inline VipsImage *fh_vips_pattern_of(int width, int height, int bands, int deep, int cmyk) {
    VipsImage *xyz = NULL, *wrapped = NULL, *x = NULL, *y = NULL, *joined = NULL, *cast = NULL, *tagged = NULL;
    if (vips_xyz(&xyz, width, height, NULL) != 0) return NULL;
    int failed = vips_remainder_const1(xyz, &wrapped, deep ? 65536 : 256, NULL);
    g_object_unref(xyz);
    if (failed) return NULL;
    failed = vips_extract_band(wrapped, &x, 0, NULL) || vips_extract_band(wrapped, &y, 1, NULL);
    g_object_unref(wrapped);
    VipsImage *planes[4] = {x, y, x, y};
    if (!failed) failed = vips_bandjoin(planes, &joined, bands, NULL);
    if (x) g_object_unref(x);
    if (y) g_object_unref(y);
    if (failed) return NULL;
    failed = vips_cast(joined, &cast, deep ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(joined);
    if (failed) return NULL;
    VipsInterpretation interpretation = cmyk ? VIPS_INTERPRETATION_CMYK
        : bands <= 2 ? (deep ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W)
        : (deep ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB);
    failed = vips_copy(cast, &tagged, "interpretation", interpretation, NULL);
    g_object_unref(cast);
    return failed ? NULL : tagged;
}

// For tests: writes an image to a file, its format from the path's suffix.
static inline int fh_vips_write(VipsImage *in, const char *path) {
    return vips_image_write_to_file(in, path, NULL);
}

// For tests: an image encoded in the format of `suffix` (".png", ".jpg", ".webp", ".gif"), into a
// buffer the caller frees with g_free.
static inline int fh_vips_encode(VipsImage *in, const char *suffix, void **buffer, size_t *length) {
    return vips_image_write_to_buffer(in, suffix, buffer, length, NULL);
}

// For tests: decodes an encoded image, the loader's name in `loader` (a static string), every
// pixel decoded (so a truncated or corrupt answer fails here).
static inline VipsImage *fh_vips_decode(const void *buffer, size_t length, const char **loader) {
    *loader = vips_foreign_find_load_buffer(buffer, length);
    VipsImage *image = vips_image_new_from_buffer(buffer, length, "", NULL);
    if (image == NULL) return NULL;
    double mean = 0;
    if (vips_avg(image, &mean, NULL) != 0) {
        g_object_unref(image);
        return NULL;
    }
    return image;
}

#endif
