// SPDX-License-Identifier: MIT
// One direction of the aes-ctr SCU (docs/scu-aes-ctr.md): AES-128-CTR over an AXI4-Stream
// payload with the slot's metadata in tuser (docs/scu.md 2.1).
//
// Keystream: the 16 bytes that start at packet byte p (p a multiple of 16) are XORed with
//   AES(key, iv + ((qpn & qpn_mask) << 32 | (offset/16 + p/16)))   (128-bit big-endian add)
// so every output byte depends only on CSR state and the packet's own metadata: a
// retransmission (same qpn, offset) gives the same bytes. Frames (src != 0) and a direction
// whose enable is 0 pass unchanged, at one beat per cycle.
//
// Iterative: LANES = DATA_W/128 AES cores work on the beat's blocks in parallel, one round per
// cycle, the round keys expanded alongside (no stored schedule). A beat is accepted when the
// output register is free (or leaves in that cycle), then takes 10 round cycles: an encrypted
// beat every 11 cycles (1/11 beat per cycle; DATA_W/11 bits per cycle). Key, IV, mask and
// enable are sampled at a packet's first beat and held for its other beats.
module scu_aes_ctr_dir #(
    parameter int unsigned DATA_W = 512,
    localparam int unsigned KEEP_W = DATA_W / 8,
    localparam int unsigned LANES = DATA_W / 128
) (
    input  logic              clk,
    input  logic              rst,

    input  logic [127:0]      cfg_key,       // byte i in bits 8i+7:8i
    input  logic [127:0]      cfg_iv,        // 128-bit integer, counter block byte 0 = 127:120
    input  logic [23:0]       cfg_qpn_mask,
    input  logic              cfg_en,

    input  logic [DATA_W-1:0] s_tdata,
    input  logic [KEEP_W-1:0] s_tkeep,
    input  logic              s_tvalid,
    output logic              s_tready,
    input  logic              s_tlast,
    input  logic [127:0]      s_tuser,

    output logic [DATA_W-1:0] m_tdata,
    output logic [KEEP_W-1:0] m_tkeep,
    output logic              m_tvalid,
    input  logic              m_tready,
    output logic              m_tlast,
    output logic [7:0]        m_tuser
);

  if (DATA_W < 128 || DATA_W % 128 != 0 || DATA_W > 2048) begin : g_bad_data_w
    $error("DATA_W must be a multiple of 128, 128..2048");
  end

  // metadata fields used here (scenic_scu_meta_t)
  logic [23:0] meta_qpn;
  logic [27:0] meta_block;   // offset / 16: the offset's block in the message
  logic [1:0]  meta_src;
  assign meta_qpn    = s_tuser[23:0];
  assign meta_block  = s_tuser[63:36];
  assign meta_src    = s_tuser[92:91];
  logic unused_meta;  // op, psn, first/last, dir, retx, len; offset bits 3:0 (see the header)
  assign unused_meta = ^{s_tuser[35:24], s_tuser[90:64], s_tuser[127:93]};

  // control
  logic        in_pkt_q;     // a packet's first beat was taken, its last not yet
  logic        busy_q;       // rounds running
  logic [3:0]  round_q;      // round applied at the next edge, 1..10
  logic        out_valid_q;

  // per packet (held for its later beats)
  logic [127:0] pkt_key_q;
  logic         pkt_bypass_q;
  logic [127:0] next_base_q;  // counter of the next beat's lane 0

  // per beat
  logic [DATA_W-1:0] data_q;
  logic [KEEP_W-1:0] keep_q;
  logic              last_q;
  logic              bypass_q;
  logic [DATA_W-1:0] state_q;  // lane j: bits 128j+127:128j
  logic [127:0]      rk_q;     // round key of round round_q

  // the beat being offered
  logic         first;
  logic [127:0] beat_key;
  logic         beat_bypass;
  logic [127:0] beat_base;
  assign first       = !in_pkt_q;
  assign beat_key    = first ? cfg_key : pkt_key_q;
  assign beat_bypass = first ? (!cfg_en || meta_src != 2'd0) : pkt_bypass_q;
  assign beat_base   = first
      ? cfg_iv + {72'h0, meta_qpn & cfg_qpn_mask, 32'h0} + {100'h0, meta_block}
      : next_base_q;

  assign s_tready = !busy_q && (!out_valid_q || m_tready);
  logic take;
  assign take = s_tvalid && s_tready;

  // counter integer -> AES block bytes (byte 0 is the most significant)
  function automatic logic [127:0] to_bytes(input logic [127:0] v);
    for (int i = 0; i < 16; i++) begin
      to_bytes[8*i +: 8] = v[127 - 8*i -: 8];
    end
  endfunction

  function automatic logic [7:0] rcon(input logic [3:0] r);
    unique case (r)
      4'd1:    rcon = 8'h01;
      4'd2:    rcon = 8'h02;
      4'd3:    rcon = 8'h04;
      4'd4:    rcon = 8'h08;
      4'd5:    rcon = 8'h10;
      4'd6:    rcon = 8'h20;
      4'd7:    rcon = 8'h40;
      4'd8:    rcon = 8'h80;
      4'd9:    rcon = 8'h1b;
      4'd10:   rcon = 8'h36;
      default: rcon = 8'h00;
    endcase
  endfunction

  // round key 1 from the beat's key (the accept cycle) or round key r+1 from r (rounds)
  logic [127:0] kx_in, kx_out;
  logic [7:0]   kx_rcon;
  assign kx_in   = busy_q ? rk_q : beat_key;
  assign kx_rcon = busy_q ? rcon(round_q + 4'd1) : 8'h01;
  scu_aes_ctr_keyexp u_keyexp (.rk(kx_in), .rcon(kx_rcon), .next(kx_out));

  logic [DATA_W-1:0] round_out;
  logic [DATA_W-1:0] init_state;  // counter blocks ^ round key 0
  for (genvar j = 0; j < LANES; j++) begin : g_lane
    scu_aes_ctr_round u_round (
        .state(state_q[128*j +: 128]), .round_key(rk_q), .final_round(round_q == 4'd10),
        .out(round_out[128*j +: 128]));
    assign init_state[128*j +: 128] = to_bytes(beat_base + 128'(j)) ^ beat_key;
  end

  always_ff @(posedge clk) begin
    if (take) begin
      data_q   <= s_tdata;
      keep_q   <= s_tkeep;
      last_q   <= s_tlast;
      bypass_q <= beat_bypass;
      if (first) begin
        pkt_key_q    <= cfg_key;
        pkt_bypass_q <= beat_bypass;
      end
      next_base_q <= beat_base + 128'(LANES);
      state_q     <= init_state;
      rk_q        <= kx_out;
      round_q     <= 4'd1;
    end else if (busy_q) begin
      state_q <= round_out;
      rk_q    <= kx_out;
      round_q <= round_q + 4'd1;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      in_pkt_q    <= 1'b0;
      busy_q      <= 1'b0;
      out_valid_q <= 1'b0;
    end else begin
      if (take) begin
        in_pkt_q    <= !s_tlast;
        busy_q      <= !beat_bypass;
        out_valid_q <= beat_bypass;
      end else if (busy_q) begin
        if (round_q == 4'd10) begin
          busy_q      <= 1'b0;
          out_valid_q <= 1'b1;
        end
      end else if (m_tready) begin
        out_valid_q <= 1'b0;
      end
    end
  end

  logic [DATA_W-1:0] keep_mask;
  always_comb begin
    for (int i = 0; i < KEEP_W; i++) begin
      keep_mask[8*i +: 8] = {8{keep_q[i]}};
    end
  end

  assign m_tdata  = (data_q ^ (bypass_q ? '0 : state_q)) & keep_mask;
  assign m_tkeep  = keep_q;
  assign m_tvalid = out_valid_q;
  assign m_tlast  = last_q;
  assign m_tuser  = 8'h00;  // never drop: RDMA payload keeps its length

`ifndef SYNTHESIS
  // tkeep contiguous from lane 0, only the last beat partial (docs/scu.md 2.1)
  always_ff @(posedge clk) begin
    if (!rst && take) begin
      assert (((s_tkeep + 1'b1) & s_tkeep) == '0) else $error("tkeep not contiguous");
      assert (s_tlast || &s_tkeep) else $error("partial beat before tlast");
    end
  end
`endif
endmodule
