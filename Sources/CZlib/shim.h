// zlib, the system's: in every Apple SDK, and from zlib1g-dev on Debian and Ubuntu (Tools/dev.sh
// installs it when missing). RewindLog deflates large snapshots with it.
#include <zlib.h>
