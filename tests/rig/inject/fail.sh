#!/bin/sh
# Injected by BRUTE_RIG_INJECT=fail: proves a failing guest test fails `make check`.
. "$RIG/tap.sh"
not_ok "injected failure (BRUTE_RIG_INJECT=fail)" "this test always fails"
