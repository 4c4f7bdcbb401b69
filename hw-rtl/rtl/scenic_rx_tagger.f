// SPDX-License-Identifier: MIT
// scenic_rx_tagger: sources, relative to hw-rtl/, in dependency order
rtl/scenic_rx_tagger.sv
