#!/bin/sh
# SPDX-License-Identifier: MIT
# Resource estimates with Debian's yosys (no Vivado): synth_xilinx for UltraScale+ per block,
# printed as a table next to the SCENIC paper's Table 2 (whole core on U55C).
# Usage: hw-rtl/synth.sh [outdir]   (logs and per-config stat in outdir, default build/hw-rtl-synth)
#        SYNTH_ONLY='scenic_tlb|scenic_cc_window' hw-rtl/synth.sh   (only blocks matching the ERE)
set -eu
cd "$(dirname "$0")"
OUT=${1:-../build/hw-rtl-synth}
mkdir -p "$OUT"
FLAGS="synth_xilinx -family xcup -flatten -noiopad -noclkbuf"
# U55C (xcu55c) device totals: LUT, FF (REG), BRAM36 tiles
DEV_LUT=1303680; DEV_FF=2607360; DEV_BRAM=2016
# block | parameters (name=value ...)
CONFIGS='
scenic_irq_moderator|CNT_W=16 EV_W=2 TIME_W=16 TICK_CYCLES=250
scenic_prefilter|DATA_W=512
scenic_prefilter|DATA_W=1024
scenic_prefilter_seg|DATA_W=1024 SEGS=2
scenic_prefilter_seg|DATA_W=1024 SEGS=4
scenic_rr_arbiter|N=4 DATA_W=512
scenic_rr_arbiter|N=16 DATA_W=512
scenic_icrc|DATA_W=512
scenic_tlb|SETS=16 WAYS=4 PAGE_SHIFT=12
scenic_tlb|SETS=16 WAYS=2 PAGE_SHIFT=21
scenic_cc_window|QPS=64 WIN_W=16
scenic_cc_window|QPS=256 WIN_W=16
scenic_dcqcn|RATE_W=24 FRAC=12 LEN_W=14 TIME_W=20 BYTE_W=24
scenic_cq_counter|QPS=512
scenic_cq_counter|QPS=4096
scenic_regfile_scu|CNT_W=32
scenic_rx_tagger|DATA_W=512
scenic_rx_tagger|DATA_W=1024
scu_aes_ctr|DATA_W=128
scu_aes_ctr|DATA_W=512
'
printf '%-22s %-36s %8s %8s %8s %7s %7s  %s\n' block params LUT FF BRAM36 LUTRAM CARRY "LUT% FF% BRAM% of U55C"
while IFS='|' read -r blk params; do
  [ -n "$blk" ] || continue
  if [ -n "${SYNTH_ONLY:-}" ] && ! echo "$blk" | grep -Eq "^(${SYNTH_ONLY})\$"; then continue; fi
  tag=$(echo "$blk $params" | tr ' =' '__')
  chp=""
  for p in $params; do chp="$chp chparam -set ${p%%=*} ${p#*=} $blk;"; done
  f=rtl/$blk.f
  [ -f "$f" ] || f=$(ls scu/*/rtl/"$blk.f")  # an SCU's list (docs/scu.md 8)
  srcs=$(grep -v "^//" "$f" | tr "\n" " ")
  yosys -q -l "$OUT/$tag.log" -p "read_verilog -sv -DSYNTHESIS $srcs; $chp
      $FLAGS -top $blk; tee -o $OUT/$tag.stat stat -tech xilinx" >/dev/null
  awk -v blk="$blk" -v params="$params" -v dl=$DEV_LUT -v df=$DEV_FF -v db=$DEV_BRAM '
    $1 ~ /^LUT[1-6]$/ { lut += $2 }
    $1 ~ /^FD[RSCP]E$/ { ff += $2 }
    $1 == "RAMB36E2" { bram += $2 }
    $1 == "RAMB18E2" { bram += $2 / 2 }
    $1 ~ /^RAM(32|64|128|256)(M|X1[SD]|M16)/ { lutram += $2 }
    $1 ~ /^CARRY[48]$/ { carry += $2 }
    END { printf "%-22s %-36s %8d %8d %8.1f %7d %7d  %.3f%% %.3f%% %.2f%%\n", blk, params, lut, ff,
          bram, lutram, carry, 100*lut/dl, 100*ff/df, 100*bram/db }' "$OUT/$tag.stat"
done <<EOF_CONFIGS
$CONFIGS
EOF_CONFIGS
echo
echo "flags: yosys $(yosys -V | cut -d' ' -f2) '$FLAGS -top <blk>', stat -tech xilinx; no timing, no"
echo "Vivado: LUT counts swing ~2x with flags/tools. LUT column counts LUT1..LUT6 (LUTRAM separate)."
echo
echo "SCENIC paper Table 2, WHOLE core on U55C (slow path + RDMA stack + memory virtualisation +"
echo "1 SCU + host DMA, Vivado): LUT 28.8%  REG 25.8%  BRAM 25.2%."
echo "NOT comparable one-to-one: the rows above are single blocks, synthesised by yosys."
