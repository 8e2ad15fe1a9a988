//! `Device::open` refuses cards that are not Pendulum, or speak another major version.

use pendulum_driver::{Card, Device, DmaRegion, DmaView, DmaViewMut, Error, RegionKind, Result};
use pendulum_layout::{global, IDENTITY, VERSION_MAJOR};

/// A card that answers only the identity and version registers.
struct FixedCard {
    identity: u32,
    version: u32,
}

impl Card for FixedCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        Ok(match offset {
            o if o == global::IDENTITY.offset => self.identity,
            o if o == global::VERSION.offset => self.version,
            o if o == global::CAP_PIPES.offset => 4,
            o if o == global::CAP_TX_PIPES.offset => 4,
            _ => 0,
        })
    }
    fn write32(&mut self, _: u32, _: u32) -> Result<()> {
        Ok(())
    }
    fn alloc_dma(&mut self, _: usize, _: RegionKind, _: bool) -> Result<DmaRegion> {
        Err(Error::Dma {
            what: "none here".into(),
            source: None,
        })
    }
    fn dma(&self, _: &DmaRegion) -> DmaView<'_> {
        DmaView::from_slice(&[])
    }
    fn dma_mut(&mut self, _: &DmaRegion) -> DmaViewMut<'_> {
        DmaViewMut::from_slice(&mut [])
    }
    fn relax(&mut self) {}
}

#[test]
fn a_card_that_is_not_pendulum_is_refused_with_what_it_read() {
    let e = Device::open(FixedCard {
        identity: 0xFFFF_FFFF,
        version: 0,
    })
    .err()
    .unwrap();
    assert!(matches!(
        e,
        Error::NotPendulum {
            found: 0xFFFF_FFFF,
            ..
        }
    ));
    assert!(e.to_string().contains("PNDL"));
}

#[test]
fn another_major_version_is_refused_and_named() {
    let v = ((VERSION_MAJOR as u32 + 1) << 16) | 3;
    let e = Device::open(FixedCard {
        identity: IDENTITY,
        version: v,
    })
    .err()
    .unwrap();
    assert!(matches!(e, Error::VersionMismatch { card_minor: 3, .. }));
    assert!(e.to_string().contains(&format!("{}.3", VERSION_MAJOR + 1)));
}

#[test]
fn a_matching_card_opens_and_bad_pipe_requests_are_clear_errors() {
    let mut dev = Device::open(FixedCard {
        identity: IDENTITY,
        version: pendulum_layout::VERSION,
    })
    .unwrap();
    assert_eq!(dev.pipes(), 4);
    assert!(matches!(
        dev.open_rx_pipe(4, 4096),
        Err(Error::NoSuchPipe { pipe: 4, pipes: 4 })
    ));
    assert!(matches!(
        dev.open_rx_pipe(0, 5000),
        Err(Error::BadRingSize { bytes: 5000, .. })
    ));
}
