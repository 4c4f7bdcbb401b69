// SPDX-License-Identifier: MIT
// ACK-clocked window flow controller (SCENIC paper section 5.2, Figure 2: the "simple ACK-clocked
// window-based flow controller" reference CC module), per QP.
//
// Every packet the transport wants to send is a request (s_req_qpn); the controller answers with a
// per-packet decision (m_dec_send): 1 = send now (the QP's outstanding count grows by one),
// 0 = defer (window full; the transport retries later). ACKs (s_ack_qpn, s_ack_cnt = packets newly
// acknowledged) shrink the outstanding count (saturating at 0) and so clock new sends.
// cfg_cwnd is the window in packets (register; changes apply at once; 0 blocks every QP).
//
// Pipeline (one decision per cycle): stage 1 registers the request; stage 2 reads the QP's
// outstanding count (register array), applies an ACK of the same QP arriving in the same cycle
// FIRST, decides (outstanding < cwnd) and writes the count back, and registers the decision.
// Decision latency: 2 cycles from the s_req handshake to m_dec_valid. Back-to-back requests of
// one QP see each other's updates (no hazard: state and decision live in the same stage).
// ACKs are always accepted (one per cycle). Counters saturate.
module scenic_cc_window #(
    parameter int unsigned QPS   = 16,
    parameter int unsigned WIN_W = 16,
    parameter int unsigned CNT_W = 32,
    // QP index width (the transport maps its 24-bit QPNs to 0..QPS-1); derived, do not override
    localparam int unsigned QPN_W = (QPS > 1) ? $clog2(QPS) : 1
) (
    input  logic              clk,
    input  logic              rst,

    input  logic [WIN_W-1:0]  cfg_cwnd,

    // per-packet send requests
    input  logic [QPN_W-1:0]  s_req_qpn,
    input  logic              s_req_valid,
    output logic              s_req_ready,

    // per-packet decisions, in request order
    output logic [QPN_W-1:0]  m_dec_qpn,
    output logic              m_dec_send,
    output logic              m_dec_valid,
    input  logic              m_dec_ready,

    // ACKs (always accepted)
    input  logic [QPN_W-1:0]  s_ack_qpn,
    input  logic [WIN_W-1:0]  s_ack_cnt,
    input  logic              s_ack_valid,

    output logic [CNT_W-1:0]  stat_send,
    output logic [CNT_W-1:0]  stat_defer
);

  if (QPS < 1 || QPS > 1024 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
    $error("QPS must be a power of two 1..1024");
  end
  if (WIN_W < 1 || WIN_W > 32) begin : g_bad_win_w
    $error("WIN_W must be 1..32");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  localparam int unsigned IDX_W = QPN_W;

  logic [QPS*WIN_W-1:0] out_q, out_d;  // outstanding packets per QP
  logic                 req_v_q;
  logic [QPN_W-1:0]     req_qpn_q;
  logic                 dec_v_q, dec_send_q;
  logic [QPN_W-1:0]     dec_qpn_q;
  logic [CNT_W-1:0]     c_send_q, c_defer_q;

  logic             dec_free, go, send;
  logic [IDX_W-1:0] ridx, aidx;
  logic [WIN_W-1:0] cur, avail;

  assign dec_free    = !dec_v_q || m_dec_ready;
  assign go          = req_v_q && dec_free;
  assign s_req_ready = !req_v_q || go;
  assign ridx        = IDX_W'(req_qpn_q);
  assign aidx        = IDX_W'(s_ack_qpn);

  // per-QP next state with constant indices (each QP compares its own index): linear logic,
  // no variable-index writes (yosys builds barrel shifters for those)
  always_comb begin
    cur = '0;
    for (int q = 0; q < QPS; q++) begin
      if (ridx == IDX_W'(q)) cur = out_q[q*WIN_W +: WIN_W];
    end
    // a same-cycle ACK of this QP first (saturating at 0)
    avail = (s_ack_valid && aidx == ridx) ? ((cur > s_ack_cnt) ? cur - s_ack_cnt : '0) : cur;
    send  = avail < cfg_cwnd;
    out_d = out_q;
    for (int q = 0; q < QPS; q++) begin
      if (s_ack_valid && aidx == IDX_W'(q)) begin
        out_d[q*WIN_W +: WIN_W] = (out_q[q*WIN_W +: WIN_W] > s_ack_cnt) ?
            out_q[q*WIN_W +: WIN_W] - s_ack_cnt : '0;
      end
      if (go && send && ridx == IDX_W'(q)) begin
        out_d[q*WIN_W +: WIN_W] = avail + 1'b1;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (s_req_valid && s_req_ready) begin
      req_qpn_q <= s_req_qpn;
    end
    if (go) begin
      dec_qpn_q  <= req_qpn_q;
      dec_send_q <= send;
    end
    if (rst) begin
      out_q     <= '0;
      req_v_q   <= 1'b0;
      dec_v_q   <= 1'b0;
      c_send_q  <= '0;
      c_defer_q <= '0;
    end else begin
      out_q <= out_d;
      if (s_req_valid && s_req_ready) begin
        req_v_q <= 1'b1;
      end else if (go) begin
        req_v_q <= 1'b0;
      end
      if (go) begin
        dec_v_q <= 1'b1;
      end else if (m_dec_ready) begin
        dec_v_q <= 1'b0;
      end
      if (go && send && c_send_q != '1) c_send_q <= c_send_q + 1'b1;
      if (go && !send && c_defer_q != '1) c_defer_q <= c_defer_q + 1'b1;
    end
  end

  assign m_dec_valid = dec_v_q;
  assign m_dec_send  = dec_send_q;
  assign m_dec_qpn   = dec_qpn_q;
  assign stat_send   = c_send_q;
  assign stat_defer  = c_defer_q;


endmodule
