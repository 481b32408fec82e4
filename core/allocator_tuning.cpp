// glibc's malloc padding (see allocator_tuning.h).
#include "allocator_tuning.h"

#include <cstdlib> // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnlab {

void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}

} // namespace attnlab
