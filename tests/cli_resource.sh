#!/bin/bash
# The resource harness's short mode (tests/fuzz/resource.sh): hostile inputs of about 1 MB (deep JSON, many
# keys, a long string, a huge number, gzip bombs, blank lines) each end within 10 s of CPU and 1 GB with a
# status. The long mode (every reader, the 1 GB bomb): tests/fuzz/resource.sh bin/sim long.
exec bash "$(dirname "$0")/fuzz/resource.sh" "$1" short
