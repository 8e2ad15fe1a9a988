//! The PCIe card's real code paths (sysfs discovery, BAR mapping, config
//! space, huge pages, pagemap, VFIO checks) against a fake host: a sysfs tree
//! in a temporary directory and a plain file standing in for BAR 0.

use pendulum_driver::layout::{self, global};
use pendulum_driver::{AnyCard, Card, Device, Error, EthernetPort, PciCard, RegionKind};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

const BDF: &str = "0000:03:00.0";
const BAR_BYTES: usize = 64 << 10;

/// A temporary host root: `sys/`, `dev/`, `proc/`.
struct FakeHost {
    root: PathBuf,
}

impl FakeHost {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("pendulum-fakehost-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("sys/bus/pci/devices")).unwrap();
        fs::create_dir_all(root.join("proc/sys/vm")).unwrap();
        fs::create_dir_all(root.join("dev")).unwrap();
        Self { root }
    }

    fn dev_dir(&self, bdf: &str) -> PathBuf {
        self.root.join("sys/bus/pci/devices").join(bdf)
    }

    /// A device with a BAR file holding the identity and `version`.
    fn add_device(&self, bdf: &str, vendor: u16, device: u16, version: u32) -> PathBuf {
        let d = self.dev_dir(bdf);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("vendor"), format!("0x{vendor:04x}\n")).unwrap();
        fs::write(d.join("device"), format!("0x{device:04x}\n")).unwrap();
        fs::write(d.join("enable"), "0\n").unwrap();
        fs::write(d.join("config"), [0u8; 256]).unwrap();
        let mut bar = vec![0u8; BAR_BYTES];
        let mut put = |off: u32, v: u32| {
            bar[off as usize..off as usize + 4].copy_from_slice(&v.to_le_bytes())
        };
        put(global::IDENTITY.offset, layout::IDENTITY);
        put(global::VERSION.offset, version);
        put(global::CAP_PIPES.offset, 4);
        put(global::CAP_TX_PIPES.offset, 4);
        put(global::CAP_NOTIF_BUFS.offset, 4);
        put(global::CAP_MAX_FRAME.offset, 9728);
        fs::write(d.join("resource0"), bar).unwrap();
        d
    }

    /// Huge pages as the tests can have them: a plain directory for the
    /// hugetlbfs mount, 4 KiB "huge" pages, and the real pagemap.
    fn with_hugepages(&self, reserved: u32) {
        fs::write(
            self.root.join("proc/sys/vm/nr_hugepages"),
            format!("{reserved}\n"),
        )
        .unwrap();
        fs::write(
            self.root.join("proc/meminfo"),
            "MemTotal: 1000 kB\nHugepagesize:       4 kB\n",
        )
        .unwrap();
        fs::create_dir_all(self.root.join("proc/self")).unwrap();
        let _ = symlink("/proc/self/pagemap", self.root.join("proc/self/pagemap"));
        fs::create_dir_all(self.root.join("dev/hugepages")).unwrap();
    }
}

impl Drop for FakeHost {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn err_text<T>(r: Result<T, Error>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn finds_the_card_by_address_and_checks_identity_through_the_mapped_bar() {
    let host = FakeHost::new("bdf");
    let dir = host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    let card = PciCard::open_with_root(&host.root, "03:00.0").unwrap();
    assert_eq!(card.address(), BDF);
    assert!(!card.uses_vfio());
    assert_eq!(card.bar_bytes(), BAR_BYTES);
    // Memory decoding was enabled and bus mastering turned on in config space.
    assert_eq!(fs::read_to_string(dir.join("enable")).unwrap(), "1");
    let cfg = fs::read(dir.join("config")).unwrap();
    assert_eq!(u16::from_le_bytes([cfg[4], cfg[5]]) & 0b110, 0b110);

    let mut dev = Device::open(card).unwrap();
    assert_eq!(dev.pipes(), 4);
    assert_eq!(dev.max_frame_bytes(), 9728);
    // Register writes land in the BAR (the file), as 32-bit little-endian words.
    dev.write(global::SCRATCH.offset, 0xA5A5_0001).unwrap();
    assert_eq!(dev.read(global::SCRATCH.offset).unwrap(), 0xA5A5_0001);
    let bar = fs::read(dir.join("resource0")).unwrap();
    let at = global::SCRATCH.offset as usize;
    assert_eq!(&bar[at..at + 4], &0xA5A5_0001u32.to_le_bytes());
    // Offsets outside the BAR or misaligned are errors, not faults.
    assert!(matches!(dev.read(BAR_BYTES as u32), Err(Error::Bar(_))));
    assert!(matches!(dev.write(2, 0), Err(Error::Bar(_))));
}

/// `EthernetPort` is for simulated cards: on a PCIe card (opened as
/// `pendulum_driver::open` opens one) every call says the port is a wire.
#[test]
fn a_pcie_card_refuses_to_inject_or_collect_frames() {
    let host = FakeHost::new("eth");
    host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    let mut card = AnyCard::Pci(PciCard::open_with_root(&host.root, BDF).unwrap());
    let text = match card.inject(&[vec![0; 64]]) {
        Err(e @ Error::NoTestPort { .. }) => e.to_string(),
        other => panic!("inject on a PCIe card: {other:?}"),
    };
    assert!(
        text.contains("cannot inject frames") && text.contains("wire"),
        "{text}"
    );
    assert!(matches!(card.collect(), Err(Error::NoTestPort { .. })));
    assert!(matches!(card.drain(100), Err(Error::NoTestPort { .. })));
    assert!(matches!(card.cycles(), Err(Error::NoTestPort { .. })));
}

#[test]
fn finds_the_first_card_by_vendor_and_device_id() {
    let host = FakeHost::new("ids");
    host.add_device("0000:01:00.0", 0x8086, 0x1234, layout::VERSION);
    host.add_device("0000:81:00.0", 0x10ee, 0x903f, layout::VERSION);
    host.add_device("0000:05:00.0", 0x10ee, 0x903f, layout::VERSION);
    let card = PciCard::open_with_root(&host.root, "pci:10ee:903f").unwrap();
    assert_eq!(card.address(), "0000:05:00.0");
    let text = err_text(PciCard::open_with_root(&host.root, "pci:1172:0001"));
    assert!(
        text.contains("no PCI device with vendor 1172 and device 0001") && text.contains("lspci"),
        "{text}"
    );
}

#[test]
fn identity_and_version_are_checked_first() {
    let host = FakeHost::new("ver");
    host.add_device(
        BDF,
        0x10ee,
        0x903f,
        (layout::VERSION_MAJOR as u32 + 1) << 16 | 3,
    );
    let text = err_text(Device::open(
        PciCard::open_with_root(&host.root, BDF).unwrap(),
    ));
    let want = format!(
        "card runs register map version {}.3, this driver speaks {}.x",
        layout::VERSION_MAJOR + 1,
        layout::VERSION_MAJOR
    );
    assert!(text.contains(&want), "{text}");

    let other = FakeHost::new("notpndl");
    let d = other.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    let mut bar = fs::read(d.join("resource0")).unwrap();
    bar[..4].copy_from_slice(&0x1234_5678u32.to_le_bytes());
    fs::write(d.join("resource0"), bar).unwrap();
    let text = err_text(Device::open(
        PciCard::open_with_root(&other.root, BDF).unwrap(),
    ));
    assert!(
        text.contains("no Pendulum card here") && text.contains("bitstream"),
        "{text}"
    );
}

#[test]
fn missing_devices_and_bad_addresses_say_what_to_do() {
    let host = FakeHost::new("missing");
    let text = err_text(PciCard::open_with_root(&host.root, "0000:09:00.0"));
    assert!(
        text.contains("no PCI device 0000:09:00.0") && text.contains("rescan"),
        "{text}"
    );
    let text = err_text(PciCard::open_with_root(&host.root, "not-an-address"));
    assert!(text.contains("sim:/path/to/socket"), "{text}");
    let text = err_text(pendulum_driver::open("sim:/nonexistent/pendulum.sock"));
    assert!(
        text.contains("pendulum-sim serve --socket /nonexistent/pendulum.sock"),
        "{text}"
    );
}

#[test]
fn a_device_owned_by_another_driver_is_refused() {
    let host = FakeHost::new("owned");
    let d = host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    let drv = host.root.join("sys/bus/pci/drivers/xdma");
    fs::create_dir_all(&drv).unwrap();
    symlink(&drv, d.join("driver")).unwrap();
    let text = err_text(PciCard::open_with_root(&host.root, BDF));
    assert!(
        text.contains("bound to the kernel driver `xdma`")
            && text.contains("unbind")
            && text.contains("vfio-pci"),
        "{text}"
    );
}

#[test]
fn vfio_without_dev_vfio_says_how_to_set_it_up() {
    let host = FakeHost::new("vfio");
    let d = host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    let drv = host.root.join("sys/bus/pci/drivers/vfio-pci");
    fs::create_dir_all(&drv).unwrap();
    symlink(&drv, d.join("driver")).unwrap();
    // Bound to vfio-pci but no IOMMU group: the IOMMU is off.
    let text = err_text(PciCard::open_with_root(&host.root, BDF));
    assert!(
        text.contains("no IOMMU group") && text.contains("intel_iommu=on"),
        "{text}"
    );
    // With a group, but /dev/vfio is missing.
    let grp = host.root.join("sys/kernel/iommu_groups/17");
    fs::create_dir_all(&grp).unwrap();
    symlink(&grp, d.join("iommu_group")).unwrap();
    let text = err_text(PciCard::open_with_root(&host.root, BDF));
    assert!(
        text.starts_with("VFIO:")
            && text.contains("dev/vfio/vfio does not exist")
            && text.contains("modprobe vfio-pci"),
        "{text}"
    );
    // /dev/vfio/vfio is there but the group's node is not.
    fs::create_dir_all(host.root.join("dev/vfio")).unwrap();
    fs::write(host.root.join("dev/vfio/vfio"), b"").unwrap();
    let text = err_text(PciCard::open_with_root(&host.root, BDF));
    assert!(text.contains("dev/vfio/17 does not exist"), "{text}");
    // Both are there but are not VFIO nodes (plain files): the ioctl fails.
    fs::write(host.root.join("dev/vfio/17"), b"").unwrap();
    let text = err_text(PciCard::open_with_root(&host.root, BDF));
    assert!(
        text.contains("VFIO_GET_API_VERSION failed") && text.contains("vfio-pci"),
        "{text}"
    );
}

#[test]
fn no_reserved_huge_pages_says_how_to_reserve_them() {
    let host = FakeHost::new("nohuge");
    host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    host.with_hugepages(0);
    let mut dev = Device::open(PciCard::open_with_root(&host.root, BDF).unwrap()).unwrap();
    let text = err_text(dev.open_rx_pipe(0, 4096));
    assert!(
        text.starts_with("huge pages: no huge pages are reserved"),
        "{text}"
    );
    assert!(
        text.contains("echo 16 | sudo tee /proc/sys/vm/nr_hugepages"),
        "{text}"
    );
    assert!(text.contains("vfio-pci"), "{text}");
}

#[test]
fn no_hugetlbfs_mount_says_how_to_mount_one() {
    let host = FakeHost::new("nomount");
    host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    host.with_hugepages(64);
    fs::remove_dir(host.root.join("dev/hugepages")).unwrap();
    let mut card = PciCard::open_with_root(&host.root, BDF).unwrap();
    let text = err_text(card.alloc_dma(64, RegionKind::Notification, false));
    assert!(
        text.contains("no hugetlbfs at") && text.contains("mount -t hugetlbfs"),
        "{text}"
    );
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn dma_memory_gets_bus_addresses_from_the_pagemap() {
    let host = FakeHost::new("pagemap");
    host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    host.with_hugepages(64);
    let mut card = PciCard::open_with_root(&host.root, BDF).unwrap();
    let r = card.alloc_dma(64, RegionKind::Notification, false);
    if !is_root() {
        // Without root the kernel hides frame numbers: the documented message.
        let text = err_text(r);
        assert!(
            text.contains("needs root (CAP_SYS_ADMIN)") && text.contains("vfio-pci"),
            "{text}"
        );
        return;
    }
    let a = r.unwrap();
    assert!(a.iova != 0 && a.iova % 64 == 0);
    // Small regions share a page, aligned to their size.
    let b = card.alloc_dma(16, RegionKind::Notification, false).unwrap();
    assert_eq!(b.iova, a.iova + 64);
    card.dma_mut(&b).copy_from(0, b"PNDL").unwrap();
    assert_eq!(&card.dma(&b).to_vec()[..4], b"PNDL");
    assert!(card.dma(&a).to_vec().iter().all(|&x| x == 0));
    // A mirrored ring of one (fake, 4 KiB) huge page: the bytes appear twice.
    let ring = card.alloc_dma(4096, RegionKind::DataRing, true).unwrap();
    assert_eq!(card.dma(&ring).len(), 8192);
    card.dma_mut(&ring).copy_from(10, &[0x5A]).unwrap();
    assert_eq!(card.dma(&ring).to_vec()[4096 + 10], 0x5A);
    // A ring bigger than a (fake, 4 KiB) huge page spans several pages; without
    // an IOMMU it maps only if the kernel happened to give physically
    // contiguous pages. Either it works as a mirrored ring or the error says why.
    match card.alloc_dma(16384, RegionKind::DataRing, true) {
        Ok(big) => {
            card.dma_mut(&big).copy_from(100, &[0xA5]).unwrap();
            assert_eq!(card.dma(&big).to_vec()[16384 + 100], 0xA5);
        }
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("not physically contiguous") || text.contains("needs an IOMMU"),
                "{text}"
            );
        }
    }
}

#[test]
fn pagemap_without_permission_is_explained() {
    // A pagemap whose entries are present but carry no frame number: what an
    // unprivileged process reads.
    let dir = std::env::temp_dir().join(format!("pendulum-pagemap-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let pm = dir.join("pagemap");
    fs::write(&pm, (1u64 << 63).to_le_bytes().repeat(4)).unwrap();
    let text = err_text(pendulum_driver::physical_address(&pm, 0, 8192, BDF));
    assert!(
        text.contains("needs root") && text.contains("vfio-pci"),
        "{text}"
    );
    fs::write(&pm, 0u64.to_le_bytes().repeat(4)).unwrap();
    let text = err_text(pendulum_driver::physical_address(&pm, 4096, 4096, BDF));
    assert!(text.contains("not present"), "{text}");
    // Frames 100, 101 then 500: not contiguous.
    let entries: Vec<u8> = [100u64, 101, 500]
        .iter()
        .flat_map(|p| (1u64 << 63 | p).to_le_bytes())
        .collect();
    fs::write(&pm, entries).unwrap();
    assert_eq!(
        pendulum_driver::physical_address(&pm, 0, 8192, BDF).unwrap(),
        100 * 4096
    );
    let text = err_text(pendulum_driver::physical_address(&pm, 0, 12288, BDF));
    assert!(text.contains("not physically contiguous"), "{text}");
    fs::remove_dir_all(&dir).unwrap();
}

/// The OS error behind `e`, if `e` keeps one as its source.
fn io_source(e: &Error) -> Option<&std::io::Error> {
    std::error::Error::source(e)?.downcast_ref::<std::io::Error>()
}

#[test]
fn vfio_and_dma_errors_keep_the_os_error_as_their_source() {
    let host = FakeHost::new("vfio-source");
    let d = host.add_device(BDF, 0x10ee, 0x903f, layout::VERSION);
    let drv = host.root.join("sys/bus/pci/drivers/vfio-pci");
    fs::create_dir_all(&drv).unwrap();
    symlink(&drv, d.join("driver")).unwrap();
    let grp = host.root.join("sys/kernel/iommu_groups/17");
    fs::create_dir_all(&grp).unwrap();
    symlink(&grp, d.join("iommu_group")).unwrap();
    fs::create_dir_all(host.root.join("dev/vfio")).unwrap();
    fs::write(host.root.join("dev/vfio/vfio"), b"").unwrap();
    fs::write(host.root.join("dev/vfio/17"), b"").unwrap();
    // Plain files, not VFIO nodes: the ioctl fails with ENOTTY.
    let e = PciCard::open_with_root(&host.root, BDF).err().unwrap();
    assert!(e.to_string().contains("VFIO_GET_API_VERSION failed"), "{e}");
    let os = io_source(&e).expect("the ioctl's error as the source");
    assert_eq!(os.raw_os_error(), Some(ENOTTY), "{os}");
    // A pagemap that is not there: the open's error is kept.
    let missing = host.root.join("proc/self/no-pagemap");
    let e = pendulum_driver::physical_address(&missing, 0, 4096, BDF).unwrap_err();
    assert!(e.to_string().starts_with("DMA memory: cannot open"), "{e}");
    let os = io_source(&e).expect("the open's error as the source");
    assert_eq!(os.kind(), std::io::ErrorKind::NotFound);
}

/// ENOTTY ("inappropriate ioctl for device") on Linux.
const ENOTTY: i32 = 25;
