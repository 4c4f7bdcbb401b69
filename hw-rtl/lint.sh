#!/bin/sh
# SPDX-License-Identifier: MIT
# Lint every hw-rtl block with verilator --lint-only -Wall, for the default parameters and the
# other parameter sets we support. Waivers live only in lint/*.vlt. Exits non-zero on any warning.
set -u
cd "$(dirname "$0")"
fail=0
# block | extra verilator args (parameter overrides); one line per configuration
CONFIGS='
scenic_irq_moderator|
scenic_irq_moderator|-GCNT_W=8 -GTIME_W=8 -GTICK_CYCLES=3
scenic_irq_moderator|-GEV_W=1
scenic_irq_moderator|-GTICK_CYCLES=1
scenic_prefilter|
scenic_prefilter|-GDATA_W=64
scenic_prefilter|-GDATA_W=256
scenic_prefilter|-GDATA_W=1024
scenic_prefilter_seg|
scenic_prefilter_seg|-GSEGS=4
scenic_prefilter_seg|-GDATA_W=2048 -GSEGS=4
scenic_prefilter_seg|-GDATA_W=512 -GSEGS=2 -GCNT_W=8
scenic_rr_arbiter|
scenic_rr_arbiter|-GN=1
scenic_rr_arbiter|-GN=3 -GDATA_W=64
scenic_rr_arbiter|-GN=16
scenic_icrc|
scenic_icrc|-GDATA_W=64
scenic_icrc|-GDATA_W=128
scenic_icrc|-GDATA_W=1024
scenic_tlb|
scenic_tlb|-GSETS=1 -GWAYS=1 -GMISS_DEPTH=1
scenic_tlb|-GSETS=4 -GWAYS=4 -GID_W=4 -GVA_W=32 -GPA_W=40 -GCNT_W=16
scenic_tlb|-GSETS=8 -GWAYS=2 -GPAGE_SHIFT=21 -GID_W=8 -GMISS_DEPTH=2 -GCNT_W=8
scenic_tlb|-GSETS=64 -GWAYS=3 -GID_W=24 -GVA_W=64 -GPA_W=64 -GMISS_DEPTH=16
scenic_cc_window|
scenic_cc_window|-GQPS=1
scenic_cc_window|-GQPS=8 -GWIN_W=4 -GCNT_W=8
scenic_cc_window|-GQPS=1024 -GWIN_W=8
scenic_dcqcn|
scenic_dcqcn|-GRATE_W=24 -GFRAC=12 -GLEN_W=14 -GTIME_W=12 -GBYTE_W=20 -GCNT_W=16
scenic_dcqcn|-GRATE_W=16 -GFRAC=8 -GLEN_W=16 -GTIME_W=8 -GBYTE_W=16 -GCNT_W=8
scenic_cq_counter|
scenic_cq_counter|-GQPS=2
scenic_cq_counter|-GQPS=512 -GEV_W=8 -GADDR_W=48 -GCNT_W=16
scenic_cq_counter|-GQPS=4096 -GEV_W=32
scenic_regfile_scu|
scenic_regfile_scu|-GCNT_W=8
scenic_rx_tagger|
scenic_rx_tagger|-GDATA_W=64
scenic_rx_tagger|-GDATA_W=128 -GCNT_W=16
scenic_rx_tagger|-GDATA_W=1024
scenic_rx_tagger|-GDATA_W=1024 -GFIFO_BYTES=65536 -GCNT_W=64
scu_aes_ctr|
scu_aes_ctr|-GDATA_W=128
scu_aes_ctr|-GDATA_W=1024
'
# a block's source list: rtl/<blk>.f, or scu/<name>/rtl/<blk>.f for an SCU (docs/scu.md 8)
flist() {
  for f in "rtl/$1.f" scu/*/rtl/"$1.f"; do [ -f "$f" ] && { echo "$f"; return; }; done
  echo "rtl/$1.f"
}
while IFS='|' read -r blk args; do
  [ -n "$blk" ] || continue
  f=$(flist "$blk")
  [ -f "$f" ] || { echo "SKIP $blk (not written yet)"; continue; }
  # shellcheck disable=SC2086
  if out=$(verilator --lint-only -Wall --top-module "$blk" $args lint/*.vlt -f "$f" 2>&1) \
     && [ -z "$out" ]; then
    echo "ok   $blk $args"
  else
    echo "FAIL $blk $args"; echo "$out"; fail=1
  fi
done <<EOF_CONFIGS
$CONFIGS
EOF_CONFIGS
# illegal parameter combinations must stop elaboration
for neg in "scenic_rr_arbiter|-GN=17" "scenic_rr_arbiter|-GDATA_W=12" "scenic_prefilter|-GDATA_W=48" \
           "scenic_prefilter|-GDATA_W=2048" \
           "scenic_prefilter_seg|-GSEGS=1" "scenic_prefilter_seg|-GSEGS=3" "scenic_prefilter_seg|-GSEGS=8" \
           "scenic_prefilter_seg|-GDATA_W=4096" "scenic_irq_moderator|-GCNT_W=0" \
           "scenic_irq_moderator|-GTICK_CYCLES=0" "scenic_irq_moderator|-GEV_W=0" \
           "scenic_icrc|-GDATA_W=32" "scenic_tlb|-GPAGE_SHIFT=16" "scenic_tlb|-GSETS=12" \
           "scenic_tlb|-GWAYS=9" "scenic_tlb|-GSETS=512 -GWAYS=4" "scenic_tlb|-GMISS_DEPTH=0" \
           "scenic_tlb|-GVA_W=14" "scenic_cc_window|-GQPS=12" "scenic_cc_window|-GQPS=2048" \
           "scenic_cc_window|-GWIN_W=0" "scenic_dcqcn|-GFRAC=24" "scenic_dcqcn|-GLEN_W=17" \
           "scenic_dcqcn|-GBYTE_W=8" "scenic_cq_counter|-GQPS=8192" "scenic_cq_counter|-GQPS=6" \
           "scenic_cq_counter|-GADDR_W=4" "scenic_cq_counter|-GQPS=1" "scenic_regfile_scu|-GCNT_W=0" "scenic_rx_tagger|-GDATA_W=32" \
           "scenic_rx_tagger|-GDATA_W=96" "scenic_rx_tagger|-GFIFO_BYTES=8192" \
           "scenic_rx_tagger|-GFIFO_BYTES=20000" "scenic_rx_tagger|-GCNT_W=0" \
           "scu_aes_ctr|-GDATA_W=192" "scu_aes_ctr|-GDATA_W=64"; do
  blk=${neg%%|*}; args=${neg#*|}
  f=$(flist "$blk")
  [ -f "$f" ] || continue
  if verilator --lint-only -Wall --top-module "$blk" "$args" lint/*.vlt -f "$f" >/dev/null 2>&1; then
    echo "FAIL $blk $args: illegal parameters were accepted"; fail=1
  else
    echo "ok   $blk $args rejected at elaboration"
  fi
done
exit $fail
