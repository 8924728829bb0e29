// OpenBLAS's CBLAS header; Debian's libopenblas-dev installs it on the default include path.
#include <cblas.h>
