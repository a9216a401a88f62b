#!/bin/sh
# Injected by BRUTE_RIG_INJECT=hang: never returns and the guest runs it without a per-script
# timeout, so only the host's wall-clock bound can end the guest (no summary line).
echo "# injected hang (BRUTE_RIG_INJECT=hang): sleeping forever"
while :; do sleep 3600; done
