#!/bin/sh
# Build an ns-3 peer program against Debian's libns3-dev (3.37).
# Usage: build.sh [OUTPUT [SOURCE]]
#   default: benchmarks/peers/ns3/build/dumbbell from dumbbell.cc; the RFC 7928 program:
#   build.sh benchmarks/peers/ns3/build/evaluate benchmarks/peers/ns3/evaluate.cc
# Debian's ns3 .pc files carry a broken "-I/usr\;" include flag, so the flags are explicit.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/build/dumbbell}
src=${2:-$here/dumbbell.cc}
mkdir -p "$(dirname "$out")"
if [ ! -f /usr/include/ns3/core-module.h ]; then
    echo "ns-3 headers not found (apt-get install -y libns3-dev)" >&2
    exit 1
fi
libs="-lns3-point-to-point -lns3-applications -lns3-internet -lns3-traffic-control \
      -lns3-bridge -lns3-mpi -lns3-network -lns3-stats -lns3-core"
# libns3-mpi is only needed if point-to-point was built with MPI; drop it when absent.
if ! ls /usr/lib/x86_64-linux-gnu/libns3-mpi.so >/dev/null 2>&1 && \
   ! ls /usr/lib/*/libns3-mpi.so >/dev/null 2>&1; then
    libs=$(echo "$libs" | sed 's/-lns3-mpi//')
fi
# Built beside OUTPUT, then renamed over it: a concurrent run of the benchmark never
# writes into a binary another one is executing, nor runs a half-written one.
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
set -x
${CXX:-g++} -std=c++17 -O2 -I/usr/include \
    -o "$tmp" "$src" $libs
mv -f "$tmp" "$out"
