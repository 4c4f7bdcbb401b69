// SPDX-License-Identifier: MIT
// Per-QP completion counters (SCENIC paper section 7.2: completion counters per QP, incremented
// atomically by the hardware and polled by the host).
//
// Completion events (s_ev_qpn, s_ev_cnt completions) add to the QP's 64-bit counter (wrapping)
// in the cycle they are accepted; every update is written back to host memory as one write of the
// new value (m_wr_addr = cfg_base + qpn*8, m_wr_data = counter, 8 bytes), so the host only ever
// sees whole, monotonically increasing values (one writer per address: atomic by construction).
//
// Coalescing and back-pressure: updates wait in one pending slot in front of the output register.
// An event of the QP already in the pending slot merges into it (its write carries the newer value;
// stat_coalesced counts merged events). An event of another QP is accepted only when the slot is
// free or moves to the output register in that cycle, so s_ev_ready depends on s_ev_qpn (allowed
// by AXI4-Stream: ready may depend on the payload). Back-to-back events of one QP under output
// back-pressure therefore collapse into one write; without back-pressure every event of a
// different QP than the previous one gives one write: one event per cycle in steady state.
// The output register is AXI-stable (loaded only when empty or accepted).
// Latency: an event accepted at edge N is written from cycle N+2 (pending slot, output register).
// Counters live in registers (QPS <= 128); a BRAM version needs read-modify-write forwarding.
module scenic_cq_counter #(
    parameter int unsigned QPS    = 16,
    parameter int unsigned EV_W   = 16,
    parameter int unsigned ADDR_W = 64,
    parameter int unsigned CNT_W  = 32,
    localparam int unsigned QPN_W = (QPS > 1) ? $clog2(QPS) : 1
) (
    input  logic              clk,
    input  logic              rst,

    input  logic [ADDR_W-1:0] cfg_base,   // 8-byte aligned counter array in host memory

    input  logic [QPN_W-1:0]  s_ev_qpn,
    input  logic [EV_W-1:0]   s_ev_cnt,
    input  logic              s_ev_valid,
    output logic              s_ev_ready,

    output logic [ADDR_W-1:0] m_wr_addr,
    output logic [63:0]       m_wr_data,
    output logic              m_wr_valid,
    input  logic              m_wr_ready,

    output logic [CNT_W-1:0]  stat_events,
    output logic [CNT_W-1:0]  stat_writes,
    output logic [CNT_W-1:0]  stat_coalesced
);

  if (QPS < 1 || QPS > 128 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
    $error("QPS must be a power of two 1..128 (register array; more QPs need a BRAM version)");
  end
  if (EV_W < 1 || EV_W > 32) begin : g_bad_ev_w
    $error("EV_W must be 1..32");
  end
  if (ADDR_W < QPN_W + 3 || ADDR_W > 64) begin : g_bad_addr_w
    $error("ADDR_W must be QPN_W+3..64");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  logic [QPS*64-1:0] ctr_q, ctr_d;      // counters (registers; reset to 0)
  logic              pend_v_q;
  logic [QPN_W-1:0]  pend_qpn_q;
  logic [63:0]       pend_val_q;
  logic              out_v_q;
  logic [QPN_W-1:0]  out_qpn_q;
  logic [63:0]       out_val_q;
  logic [CNT_W-1:0]  c_ev_q, c_wr_q, c_co_q;

  logic        out_free, pend_move, same, acc;
  logic [63:0] newval;

  assign out_free   = !out_v_q || m_wr_ready;
  assign pend_move  = pend_v_q && out_free;
  assign same       = pend_v_q && s_ev_qpn == pend_qpn_q && !pend_move;
  assign s_ev_ready = !pend_v_q || pend_move || same;
  assign acc        = s_ev_valid && s_ev_ready;
  // constant-index read mux and per-QP write enables (no variable-index writes: yosys builds
  // barrel shifters for those)
  always_comb begin
    logic [63:0] cur;
    cur = '0;
    for (int q = 0; q < QPS; q++) begin
      if (s_ev_qpn == QPN_W'(q)) cur = ctr_q[q*64 +: 64];
    end
    newval = cur + 64'(s_ev_cnt);
    ctr_d  = ctr_q;
    for (int q = 0; q < QPS; q++) begin
      if (acc && s_ev_qpn == QPN_W'(q)) ctr_d[q*64 +: 64] = newval;
    end
  end

  always_ff @(posedge clk) begin
    if (pend_move) begin
      out_qpn_q <= pend_qpn_q;
      out_val_q <= pend_val_q;
    end
    if (acc) begin
      pend_qpn_q <= s_ev_qpn;
      pend_val_q <= newval;
    end
    if (rst) begin
      ctr_q    <= '0;
      pend_v_q <= 1'b0;
      out_v_q  <= 1'b0;
      c_ev_q   <= '0;
      c_wr_q   <= '0;
      c_co_q   <= '0;
    end else begin
      ctr_q <= ctr_d;
      if (acc) begin
        pend_v_q <= 1'b1;
      end else if (pend_move) begin
        pend_v_q <= 1'b0;
      end
      if (pend_move) begin
        out_v_q <= 1'b1;
      end else if (m_wr_ready) begin
        out_v_q <= 1'b0;
      end
      if (acc && c_ev_q != '1) c_ev_q <= c_ev_q + 1'b1;
      if (acc && same && c_co_q != '1) c_co_q <= c_co_q + 1'b1;
      if (out_v_q && m_wr_ready && c_wr_q != '1) c_wr_q <= c_wr_q + 1'b1;
    end
  end

  assign m_wr_valid     = out_v_q;
  assign m_wr_addr      = cfg_base + {{(ADDR_W-QPN_W-3){1'b0}}, out_qpn_q, 3'b000};
  assign m_wr_data      = out_val_q;
  assign stat_events    = c_ev_q;
  assign stat_writes    = c_wr_q;
  assign stat_coalesced = c_co_q;

endmodule
