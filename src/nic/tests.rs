//! NIC tests
