// SPDX-License-Identifier: MIT
// RoCE v2 ICRC generate / check (IBA annex A17, RoCEv2) on L2-stripped packets: the stream
// starts at the IPv4/IPv6 header and ends with the 4-byte ICRC, as the offloaded stack sees it.
//
// ICRC = ~CRC-32 (reflected, polynomial 0x04C11DB7, as Ethernet FCS) over
//   64 bits of 1s | IP header | UDP header | BTH | payload       (everything but the ICRC)
// with, set to all 1s: IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label and hop
// limit; UDP checksum; BTH resv8a. Transmitted least significant byte first.
// The 64-bit prefix is folded into the initial state (0xDEBB20E3, what Linux rxe seeds with).
//
// icrc_gen = 1: the last 4 bytes of each packet are overwritten with the ICRC (TX);
// icrc_gen = 0: they pass unchanged (RX). In both modes m_axis_tuser is 1 on the tlast beat when
// the last 4 bytes equalled the computed ICRC. Packets shorter than 4 bytes pass unchanged with
// m_axis_tuser = 0. icrc_gen is static configuration (change it only between packets).
//
// Partial last beat, deliberately: every beat goes through ONE full-width CRC with the bytes
// beyond the covered range zeroed, then the state is stepped BACK over the m zero bytes
// (m = KEEP_W - covered): one conditional inverse-CRC stage per bit of m (log2(KEEP_W) stages of
// 32-bit linear maps) instead of a CRC engine per byte lane. The ICRC may straddle the last two
// beats, so a beat is held (output register) until the next one shows where the packet ends.
// One beat per cycle in steady state; the output depends combinationally on the next input beat
// (tvalid, tlast, tkeep) when the ICRC straddles: a register slice may follow for timing.
module scenic_icrc #(
    parameter int unsigned DATA_W = 512
) (
    input  logic                clk,
    input  logic                rst,

    input  logic                icrc_gen,

    input  logic [DATA_W-1:0]   s_axis_tdata,
    input  logic [DATA_W/8-1:0] s_axis_tkeep,
    input  logic                s_axis_tvalid,
    output logic                s_axis_tready,
    input  logic                s_axis_tlast,

    output logic [DATA_W-1:0]   m_axis_tdata,
    output logic [DATA_W/8-1:0] m_axis_tkeep,
    output logic                m_axis_tvalid,
    input  logic                m_axis_tready,
    output logic                m_axis_tlast,
    output logic                m_axis_tuser     // ICRC matched (valid with tlast)
);

  localparam int unsigned KEEP_W  = DATA_W / 8;
  localparam int unsigned LANE_W  = $clog2(KEEP_W);
  localparam int unsigned CNT_W   = LANE_W + 1;               // 0..KEEP_W
  localparam int unsigned MASK_BYTES = 76;                    // IPv4 60 + UDP 8 + BTH resv8a
  localparam int unsigned MASK_BEATS = (MASK_BYTES + KEEP_W - 1) / KEEP_W;
  localparam int unsigned BIDX_W  = $clog2(MASK_BEATS + 1);
  localparam logic [31:0] POLY    = 32'hEDB88320;             // reflected 0x04C11DB7
  localparam logic [31:0] INIT    = 32'hDEBB20E3;             // after 8 bytes of 0xFF

  if (DATA_W < 64 || DATA_W > 1024 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_data_w
    $error("DATA_W must be a power of two, 64..1024");
  end

  // CRC over all KEEP_W bytes, lane 0 first, each byte LSB first
  function automatic logic [31:0] crc_fwd(input logic [31:0] s, input logic [DATA_W-1:0] d);
    logic [31:0] c;
    c = s;
    for (int i = 0; i < DATA_W; i++) begin
      c = (c >> 1) ^ (((c[0] ^ d[i]) != 1'b0) ? POLY : 32'h0);
    end
    crc_fwd = c;
  endfunction

  // inverse of crc_fwd over `bits` zero data bits
  function automatic logic [31:0] crc_back(input logic [31:0] s, input int bits);
    logic [31:0] c;
    c = s;
    for (int i = 0; i < bits; i++) begin
      c = c[31] ? (((c ^ POLY) << 1) | 32'h1) : (c << 1);
    end
    crc_back = c;
  endfunction

  function automatic logic [CNT_W-1:0] keep_count(input logic [KEEP_W-1:0] k);
    logic [CNT_W-1:0] n;
    n = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      n = n + CNT_W'(k[i]);
    end
    keep_count = n;
  endfunction

  // ------------------------------------------------------------------ held beat (output register)
  logic              a_valid_q, a_last_q, a_fin_q, a_ok_q;
  logic [DATA_W-1:0] a_data_q;
  logic [KEEP_W-1:0] a_keep_q;
  logic [BIDX_W-1:0] a_bidx_q;        // beat index of the held beat, saturating
  logic [31:0]       state_q;         // CRC state before the held beat
  logic [31:0]       icrc_q;          // ICRC for the held last beat when it straddled
  logic [2:0]        a_off_q;         // ICRC bytes already placed in the previous beat
  logic [3:0]        ver_q, ihl_q;
  logic              in_pkt_q;        // s side: inside a packet
  logic [BIDX_W-1:0] in_bidx_q;

  logic              s_hs, m_hs;
  logic [CNT_W-1:0]  a_cnt, s_cnt, n_cov;
  logic              straddle, a_final;
  logic [DATA_W-1:0] a_masked;
  logic [31:0]       fwd, back, icrc;
  logic [DATA_W-1:0] a_out;
  logic              part_ok;
  logic [2:0]        s_off;

  assign a_cnt = keep_count(a_keep_q);
  assign s_cnt = keep_count(s_axis_tkeep);

  // the next beat ends the packet with fewer than 4 bytes: the ICRC starts in the held beat
  assign straddle = a_valid_q && !a_last_q && s_axis_tvalid && s_axis_tlast && s_cnt < CNT_W'(4);
  assign s_off    = 3'(4 - 32'(s_cnt));            // ICRC bytes in the held beat when straddling

  // bytes of the held beat covered by the CRC, and whether the CRC ends in it
  always_comb begin
    a_final = 1'b0;
    n_cov   = CNT_W'(KEEP_W);
    if (a_last_q) begin
      a_final = !a_fin_q && a_cnt >= CNT_W'(4);
      n_cov   = a_fin_q ? '0 : (a_cnt >= CNT_W'(4) ? a_cnt - CNT_W'(4) : '0);
    end else if (straddle) begin
      a_final = 1'b1;
      n_cov   = CNT_W'(KEEP_W) - CNT_W'(s_off);
    end
  end

  // mask the invariant-field bytes to 1s, zero the bytes beyond the covered range
  always_comb begin
    for (int l = 0; l < KEEP_W; l++) begin
      logic [7:0]  b;
      logic [15:0] pos;
      logic [15:0] l4;
      b   = a_data_q[8*l +: 8];
      pos = 16'(a_bidx_q) * 16'(KEEP_W) + 16'(l);
      l4  = 16'({ihl_q, 2'b00});
      if (a_bidx_q < BIDX_W'(MASK_BEATS)) begin
        if (ver_q == 4'd4) begin
          if (pos == 16'd1 || pos == 16'd8 || pos == 16'd10 || pos == 16'd11 ||
              pos == l4 + 16'd6 || pos == l4 + 16'd7 || pos == l4 + 16'd12) begin
            b = 8'hff;
          end
        end else if (ver_q == 4'd6) begin
          if (pos == 16'd0) begin
            b = b | 8'h0f;
          end else if (pos == 16'd1 || pos == 16'd2 || pos == 16'd3 || pos == 16'd7 ||
                       pos == 16'd46 || pos == 16'd47 || pos == 16'd52) begin
            b = 8'hff;
          end
        end
      end
      a_masked[8*l +: 8] = (CNT_W'(l) < n_cov) ? b : 8'h00;
    end
  end

  // one full-width CRC, then step back over the zero bytes beyond n_cov
  always_comb begin
    logic [LANE_W:0] m;
    fwd  = crc_fwd(state_q, a_masked);
    m    = (LANE_W+1)'(KEEP_W) - (LANE_W+1)'(n_cov);
    back = fwd;
    for (int j = 0; j < LANE_W; j++) begin
      if (m[j]) back = crc_back(back, 8 << j);
    end
    if (m[LANE_W]) back = state_q;             // nothing covered in this beat
    icrc = ~back;
  end

  // place / check the ICRC bytes in the held beat
  always_comb begin
    a_out   = a_data_q;
    part_ok = 1'b1;
    for (int l = 0; l < KEEP_W; l++) begin
      logic [15:0] lv;
      logic [1:0]  kk;
      logic        hit;
      logic [7:0]  want;
      lv  = 16'(l);
      kk  = '0;
      hit = 1'b0;
      if (a_final) begin
        // ICRC byte kk of the ICRC computed now
        if (lv >= 16'(n_cov) && lv < 16'(n_cov) + 16'd4) begin
          hit = 1'b1;
          kk  = 2'(lv - 16'(n_cov));
        end
      end else if (a_last_q && a_fin_q) begin
        // the rest of an ICRC that started in the previous beat
        if (lv + 16'(a_off_q) < 16'd4) begin
          hit = 1'b1;
          kk  = 2'(lv + 16'(a_off_q));
        end
      end
      want = a_final ? icrc[8*kk +: 8] : icrc_q[8*kk +: 8];
      if (hit && lv < 16'(a_cnt)) begin
        if (a_data_q[8*l +: 8] != want) part_ok = 1'b0;
        if (icrc_gen) a_out[8*l +: 8] = want;
      end
    end
  end

  assign m_axis_tdata  = a_out;
  assign m_axis_tkeep  = a_keep_q;
  assign m_axis_tlast  = a_last_q;
  assign m_axis_tvalid = a_valid_q && (a_last_q || s_axis_tvalid);
  assign m_axis_tuser  = a_last_q && (a_fin_q ? (a_ok_q && part_ok)
                                              : (a_cnt >= CNT_W'(4) && part_ok));
  assign s_axis_tready = !a_valid_q || m_axis_tready;
  assign s_hs = s_axis_tvalid && s_axis_tready;
  assign m_hs = m_axis_tvalid && m_axis_tready;

  always_ff @(posedge clk) begin
    if (rst) begin
      a_valid_q <= 1'b0;
      a_last_q  <= 1'b0;
      a_fin_q   <= 1'b0;
      in_pkt_q  <= 1'b0;
      in_bidx_q <= '0;
    end else begin
      if (m_hs && !s_hs) begin
        a_valid_q <= 1'b0;
      end
      if (s_hs) begin
        a_valid_q <= 1'b1;
        a_last_q  <= s_axis_tlast;
        a_fin_q   <= straddle;
        a_bidx_q  <= in_bidx_q;
        in_pkt_q  <= !s_axis_tlast;
        in_bidx_q <= s_axis_tlast ? '0 :
                     (in_bidx_q == BIDX_W'(MASK_BEATS) ? in_bidx_q : in_bidx_q + 1'b1);
      end
    end
  end

  // datapath registers, not reset
  always_ff @(posedge clk) begin
    if (s_hs) begin
      a_data_q <= s_axis_tdata;
      a_keep_q <= s_axis_tkeep;
      state_q  <= in_pkt_q ? fwd : INIT;
      icrc_q   <= icrc;
      a_off_q  <= s_off;
      a_ok_q   <= part_ok;
      if (!in_pkt_q) begin
        ver_q <= s_axis_tdata[7:4];
        ihl_q <= s_axis_tdata[3:0];
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && s_axis_tvalid) begin
      assert (s_axis_tlast || &s_axis_tkeep) else $error("partial tkeep on a non-last beat");
    end
  end
`endif

endmodule
