// zlib, for reading the .tar.gz archives LeanCloud's console exports.
#include <zlib.h>
