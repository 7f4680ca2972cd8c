# Sourced by scripts/start.sh and `npm run bench`: the server allocates and frees buffers of
# tens of MiB (previews, exports, reports) from several threads; glibc's malloc keeps what
# they freed, so RSS stayed 250-450 MiB above its baseline after an attack soak. Debian's
# jemalloc returns it within a second (docs/performance.md#allocator).
# ANALYST_ALLOCATOR=system keeps glibc's; a LD_PRELOAD already set is left alone.
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ "${ANALYST_ALLOCATOR:-jemalloc}" = "jemalloc" ] && [ -z "${LD_PRELOAD:-}" ] && [ -f "$jemalloc" ]; then
  export LD_PRELOAD="$jemalloc"
  export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0}"
fi
