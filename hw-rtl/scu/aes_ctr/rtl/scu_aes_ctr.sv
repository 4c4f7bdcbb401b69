// SPDX-License-Identifier: MIT
// The aes-ctr SCU (kind 2, docs/scu-aes-ctr.md): AES-128 in counter mode over the RDMA payload
// of the slot's QPs, both directions, with the slot ports of docs/scu.md 2. Key, IVs, QPN mask
// and enables are CSRs (AXI4-Lite, 64-bit registers); the memory port is not used.
//
// CSR map (register index; byte address = 8 * index):
//   0 KEY_HI   rw  key bytes 0..7, byte 0 in bits 63:56     1 KEY_LO    rw  key bytes 8..15
//   2 IV_TX_HI rw  s_tx counter base, bytes 0..7            3 IV_TX_LO  rw  bytes 8..15
//   4 IV_RX_HI rw  s_rx counter base, bytes 0..7            5 IV_RX_LO  rw  bytes 8..15
//   6 QPN_MASK rw  bits 23:0, reset 0xffffff                7 CTRL      rw  bit 0 TX, bit 1 RX
//   8 ID       ro  "SCUAES01"   9 PKTS ro (both directions)  10 BYTES ro (both directions)
// Other indices read 0 and ignore writes. CTRL resets to 0: both directions pass unchanged.
module scu_aes_ctr #(
    parameter int unsigned DATA_W = 512,
    localparam int unsigned KEEP_W = DATA_W / 8
) (
    input  logic              clk,
    input  logic              rst,

    // payload from the wire, towards host memory
    input  logic [DATA_W-1:0] s_rx_tdata,
    input  logic [KEEP_W-1:0] s_rx_tkeep,
    input  logic              s_rx_tvalid,
    output logic              s_rx_tready,
    input  logic              s_rx_tlast,
    input  logic [127:0]      s_rx_tuser,
    output logic [DATA_W-1:0] m_rx_tdata,
    output logic [KEEP_W-1:0] m_rx_tkeep,
    output logic              m_rx_tvalid,
    input  logic              m_rx_tready,
    output logic              m_rx_tlast,
    output logic [7:0]        m_rx_tuser,
    // payload from host memory, towards the wire
    input  logic [DATA_W-1:0] s_tx_tdata,
    input  logic [KEEP_W-1:0] s_tx_tkeep,
    input  logic              s_tx_tvalid,
    output logic              s_tx_tready,
    input  logic              s_tx_tlast,
    input  logic [127:0]      s_tx_tuser,
    output logic [DATA_W-1:0] m_tx_tdata,
    output logic [KEEP_W-1:0] m_tx_tkeep,
    output logic              m_tx_tvalid,
    input  logic              m_tx_tready,
    output logic              m_tx_tlast,
    output logic [7:0]        m_tx_tuser,

    // CSR port, AXI4-Lite
    input  logic [15:0]       csr_awaddr,
    input  logic              csr_awvalid,
    output logic              csr_awready,
    input  logic [63:0]       csr_wdata,
    input  logic [7:0]        csr_wstrb,
    input  logic              csr_wvalid,
    output logic              csr_wready,
    output logic [1:0]        csr_bresp,
    output logic              csr_bvalid,
    input  logic              csr_bready,
    input  logic [15:0]       csr_araddr,
    input  logic              csr_arvalid,
    output logic              csr_arready,
    output logic [63:0]       csr_rdata,
    output logic [1:0]        csr_rresp,
    output logic              csr_rvalid,
    input  logic              csr_rready,

    output logic [3:0]        irq,

    // memory port: unused, tied off
    output logic              mrd_req_valid,
    input  logic              mrd_req_ready,
    output logic [31:0]       mrd_req_key,
    output logic [63:0]       mrd_req_iova,
    output logic [16:0]       mrd_req_len,
    output logic [7:0]        mrd_req_tag,
    input  logic [DATA_W-1:0] mrd_data_tdata,
    input  logic [KEEP_W-1:0] mrd_data_tkeep,
    input  logic              mrd_data_tvalid,
    output logic              mrd_data_tready,
    input  logic              mrd_data_tlast,
    input  logic [9:0]        mrd_data_tuser,
    output logic              mwr_req_valid,
    input  logic              mwr_req_ready,
    output logic [31:0]       mwr_req_key,
    output logic [63:0]       mwr_req_iova,
    output logic [16:0]       mwr_req_len,
    output logic [7:0]        mwr_req_tag,
    output logic [DATA_W-1:0] mwr_data_tdata,
    output logic [KEEP_W-1:0] mwr_data_tkeep,
    output logic              mwr_data_tvalid,
    input  logic              mwr_data_tready,
    output logic              mwr_data_tlast,
    input  logic              mwr_cpl_valid,
    output logic              mwr_cpl_ready,
    input  logic [7:0]        mwr_cpl_tag,
    input  logic [1:0]        mwr_cpl_status,

    input  logic [3:0]        slot_id,
    input  logic              paused
);

  localparam logic [63:0] ID_VALUE = 64'h5343_5541_4553_3031;  // "SCUAES01"

  // ---- CSRs
  logic [63:0] key_hi_q, key_lo_q, iv_tx_hi_q, iv_tx_lo_q, iv_rx_hi_q, iv_rx_lo_q;
  logic [23:0] qpn_mask_q;
  logic [1:0]  ctrl_q;
  logic [63:0] pkts_q, bytes_q;

  logic [63:0] wmask;
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      wmask[8*i +: 8] = {8{csr_wstrb[i]}};
    end
  end
  function automatic logic [63:0] merge(input logic [63:0] old, input logic [63:0] wd,
                                        input logic [63:0] m);
    merge = (old & ~m) | (wd & m);
  endfunction

  logic wr;
  assign csr_awready = csr_awvalid && csr_wvalid && !csr_bvalid;
  assign csr_wready  = csr_awready;
  assign wr          = csr_awready;
  logic [12:0] widx, ridx;
  assign widx = csr_awaddr[15:3];
  assign ridx = csr_araddr[15:3];
  logic unused_addr;
  assign unused_addr = ^{csr_awaddr[2:0], csr_araddr[2:0]};

  logic [63:0] qpn_mask_w, ctrl_w;
  assign qpn_mask_w = merge({40'h0, qpn_mask_q}, csr_wdata, wmask);
  assign ctrl_w     = merge({62'h0, ctrl_q}, csr_wdata, wmask);
  logic unused_wbits;
  assign unused_wbits = ^{qpn_mask_w[63:24], ctrl_w[63:2]};

  always_ff @(posedge clk) begin
    if (rst) begin
      key_hi_q   <= '0;
      key_lo_q   <= '0;
      iv_tx_hi_q <= '0;
      iv_tx_lo_q <= '0;
      iv_rx_hi_q <= '0;
      iv_rx_lo_q <= '0;
      qpn_mask_q <= 24'hff_ffff;
      ctrl_q     <= 2'b00;
      csr_bvalid <= 1'b0;
    end else begin
      if (wr) begin
        unique case (widx)
          13'd0:   key_hi_q   <= merge(key_hi_q, csr_wdata, wmask);
          13'd1:   key_lo_q   <= merge(key_lo_q, csr_wdata, wmask);
          13'd2:   iv_tx_hi_q <= merge(iv_tx_hi_q, csr_wdata, wmask);
          13'd3:   iv_tx_lo_q <= merge(iv_tx_lo_q, csr_wdata, wmask);
          13'd4:   iv_rx_hi_q <= merge(iv_rx_hi_q, csr_wdata, wmask);
          13'd5:   iv_rx_lo_q <= merge(iv_rx_lo_q, csr_wdata, wmask);
          13'd6:   qpn_mask_q <= qpn_mask_w[23:0];
          13'd7:   ctrl_q     <= ctrl_w[1:0];
          default: ;  // read-only or unused
        endcase
        csr_bvalid <= 1'b1;
      end else if (csr_bready) begin
        csr_bvalid <= 1'b0;
      end
    end
  end
  assign csr_bresp = 2'b00;

  assign csr_arready = !csr_rvalid;
  always_ff @(posedge clk) begin
    if (rst) begin
      csr_rvalid <= 1'b0;
    end else if (csr_arvalid && csr_arready) begin
      csr_rvalid <= 1'b1;
    end else if (csr_rready) begin
      csr_rvalid <= 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (csr_arvalid && csr_arready) begin
      unique case (ridx)
        13'd0:   csr_rdata <= key_hi_q;
        13'd1:   csr_rdata <= key_lo_q;
        13'd2:   csr_rdata <= iv_tx_hi_q;
        13'd3:   csr_rdata <= iv_tx_lo_q;
        13'd4:   csr_rdata <= iv_rx_hi_q;
        13'd5:   csr_rdata <= iv_rx_lo_q;
        13'd6:   csr_rdata <= {40'h0, qpn_mask_q};
        13'd7:   csr_rdata <= {62'h0, ctrl_q};
        13'd8:   csr_rdata <= ID_VALUE;
        13'd9:   csr_rdata <= pkts_q;
        13'd10:  csr_rdata <= bytes_q;
        default: csr_rdata <= 64'h0;
      endcase
    end
  end
  assign csr_rresp = 2'b00;

  // key bytes in AES order (byte i in bits 8i+7:8i) from the big-endian CSR pair
  logic [127:0] key_bytes;
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      key_bytes[8*i +: 8]       = key_hi_q[63 - 8*i -: 8];
      key_bytes[8*(8 + i) +: 8] = key_lo_q[63 - 8*i -: 8];
    end
  end

  // ---- the two directions
  scu_aes_ctr_dir #(.DATA_W(DATA_W)) u_rx (
      .clk, .rst,
      .cfg_key(key_bytes), .cfg_iv({iv_rx_hi_q, iv_rx_lo_q}), .cfg_qpn_mask(qpn_mask_q),
      .cfg_en(ctrl_q[1]),
      .s_tdata(s_rx_tdata), .s_tkeep(s_rx_tkeep), .s_tvalid(s_rx_tvalid),
      .s_tready(s_rx_tready), .s_tlast(s_rx_tlast), .s_tuser(s_rx_tuser),
      .m_tdata(m_rx_tdata), .m_tkeep(m_rx_tkeep), .m_tvalid(m_rx_tvalid),
      .m_tready(m_rx_tready), .m_tlast(m_rx_tlast), .m_tuser(m_rx_tuser));
  scu_aes_ctr_dir #(.DATA_W(DATA_W)) u_tx (
      .clk, .rst,
      .cfg_key(key_bytes), .cfg_iv({iv_tx_hi_q, iv_tx_lo_q}), .cfg_qpn_mask(qpn_mask_q),
      .cfg_en(ctrl_q[0]),
      .s_tdata(s_tx_tdata), .s_tkeep(s_tx_tkeep), .s_tvalid(s_tx_tvalid),
      .s_tready(s_tx_tready), .s_tlast(s_tx_tlast), .s_tuser(s_tx_tuser),
      .m_tdata(m_tx_tdata), .m_tkeep(m_tx_tkeep), .m_tvalid(m_tx_tvalid),
      .m_tready(m_tx_tready), .m_tlast(m_tx_tlast), .m_tuser(m_tx_tuser));

  // ---- PKTS / BYTES: counted as packets enter, both directions
  function automatic logic [63:0] popcount(input logic [KEEP_W-1:0] k);
    popcount = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      popcount = popcount + {63'h0, k[i]};
    end
  endfunction
  logic rx_take, tx_take;
  assign rx_take = s_rx_tvalid && s_rx_tready;
  assign tx_take = s_tx_tvalid && s_tx_tready;
  always_ff @(posedge clk) begin
    if (rst) begin
      pkts_q  <= '0;
      bytes_q <= '0;
    end else begin
      pkts_q  <= pkts_q + {63'h0, rx_take && s_rx_tlast} + {63'h0, tx_take && s_tx_tlast};
      bytes_q <= bytes_q + (rx_take ? popcount(s_rx_tkeep) : 64'h0)
                         + (tx_take ? popcount(s_tx_tkeep) : 64'h0);
    end
  end

  // ---- tie-offs
  assign irq             = 4'h0;
  assign mrd_req_valid   = 1'b0;
  assign mrd_req_key     = '0;
  assign mrd_req_iova    = '0;
  assign mrd_req_len     = '0;
  assign mrd_req_tag     = '0;
  assign mrd_data_tready = 1'b1;
  assign mwr_req_valid   = 1'b0;
  assign mwr_req_key     = '0;
  assign mwr_req_iova    = '0;
  assign mwr_req_len     = '0;
  assign mwr_req_tag     = '0;
  assign mwr_data_tdata  = '0;
  assign mwr_data_tkeep  = '0;
  assign mwr_data_tvalid = 1'b0;
  assign mwr_data_tlast  = 1'b0;
  assign mwr_cpl_ready   = 1'b1;
  logic unused_ports;
  assign unused_ports = ^{mrd_req_ready, mrd_data_tdata, mrd_data_tkeep, mrd_data_tvalid,
                          mrd_data_tlast, mrd_data_tuser, mwr_req_ready, mwr_data_tready,
                          mwr_cpl_valid, mwr_cpl_tag, mwr_cpl_status, slot_id, paused};
endmodule
