//! A Pendulum card on the PCIe bus.
//!
//! - Found under sysfs by its address (`0000:03:00.0`) or by vendor and
//!   device id (first match).
//! - Registers: BAR 0, mapped from sysfs `resource0` (needs root), or through
//!   VFIO when the device is bound to `vfio-pci`.
//! - DMA memory: under VFIO, memory files mapped into the device's IOMMU at
//!   bus addresses the driver chooses; otherwise huge pages (physically
//!   contiguous) whose bus addresses come from `/proc/self/pagemap` (root;
//!   without an IOMMU the bus address is the physical address).
//!
//! Every path is taken from [`HostPaths`], so tests run the same code against
//! a fake sysfs tree and a plain file standing in for the BAR.

use crate::sys::{self, vfio, Bar, DmaMap};
use crate::{Card, DmaRegion, DmaView, DmaViewMut, Error, RegionKind, Result};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Page size of the pagemap and of VFIO mappings.
const PAGE_BYTES: u64 = 4096;
/// Where the driver starts placing DMA memory in the IOMMU's address space.
const VFIO_IOVA_BASE: u64 = 1 << 32;

/// Where the host's kernel interfaces are. [`Default`] is the real machine;
/// tests point each at a temporary tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPaths {
    /// sysfs (`/sys`): `bus/pci/devices/<bdf>/…`.
    pub sys: PathBuf,
    /// `/dev`: `vfio/`, `hugepages/` (a hugetlbfs mount).
    pub dev: PathBuf,
    /// procfs (`/proc`): `sys/vm/nr_hugepages`, `meminfo`, `self/pagemap`.
    pub proc_: PathBuf,
}

impl Default for HostPaths {
    fn default() -> Self {
        Self::under(Path::new("/"))
    }
}

impl HostPaths {
    /// `root/sys`, `root/dev` and `root/proc`.
    pub fn under(root: &Path) -> Self {
        Self {
            sys: root.join("sys"),
            dev: root.join("dev"),
            proc_: root.join("proc"),
        }
    }

    fn pci_devices(&self) -> PathBuf {
        self.sys.join("bus/pci/devices")
    }
}

/// Which PCI device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PciSelector {
    /// Domain:bus:device.function, normalised to `0000:03:00.0`.
    Address(String),
    /// The first device (in address order) with these ids.
    Ids { vendor: u16, device: u16 },
}

impl PciSelector {
    /// `0000:03:00.0`, `03:00.0`, or `pci:VENDOR:DEVICE` in hex (`pci:10ee:903f`).
    pub fn parse(s: &str) -> Option<Self> {
        if let Some(ids) = s.strip_prefix("pci:") {
            let (v, d) = ids.split_once(':')?;
            let hex = |x: &str| {
                (!x.is_empty() && x.len() <= 4)
                    .then(|| u16::from_str_radix(x.trim_start_matches("0x"), 16).ok())
                    .flatten()
            };
            return Some(Self::Ids {
                vendor: hex(v)?,
                device: hex(d)?,
            });
        }
        let full = if s.matches(':').count() == 1 {
            format!("0000:{s}")
        } else {
            s.to_string()
        };
        let (dom, rest) = full.split_once(':')?;
        let (bus, rest) = rest.split_once(':')?;
        let (dev, func) = rest.split_once('.')?;
        let ok = |x: &str, n: usize| x.len() == n && x.chars().all(|c| c.is_ascii_hexdigit());
        (ok(dom, 4) && ok(bus, 2) && ok(dev, 2) && ok(func, 1))
            .then(|| Self::Address(full.to_ascii_lowercase()))
    }
}

fn read_trimmed(p: &Path) -> io::Result<String> {
    Ok(fs::read_to_string(p)?.trim().to_string())
}

fn read_hex_id(p: &Path) -> Option<u16> {
    let s = read_trimmed(p).ok()?;
    u16::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// Finds the device directory under sysfs. Returns (address, directory).
pub fn find_device(paths: &HostPaths, sel: &PciSelector) -> Result<(String, PathBuf)> {
    let devices = paths.pci_devices();
    match sel {
        PciSelector::Address(bdf) => {
            let dir = devices.join(bdf);
            if dir.exists() {
                Ok((bdf.clone(), dir))
            } else {
                Err(Error::NoDevice(format!(
                    "no PCI device {bdf} (no {}): check the address with `lspci -D -d 10ee:` or `lspci -D -d 1172:`, that the bitstream is loaded, and rescan with `echo 1 > /sys/bus/pci/rescan`",
                    dir.display()
                )))
            }
        }
        PciSelector::Ids { vendor, device } => {
            let mut names: Vec<String> = fs::read_dir(&devices)
                .map_err(|e| {
                    Error::NoDevice(format!(
                        "cannot list {}: {e}; is sysfs mounted?",
                        devices.display()
                    ))
                })?
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect();
            names.sort();
            names
                .into_iter()
                .find(|n| {
                    let d = devices.join(n);
                    read_hex_id(&d.join("vendor")) == Some(*vendor) && read_hex_id(&d.join("device")) == Some(*device)
                })
                .map(|n| (n.clone(), devices.join(n)))
                .ok_or_else(|| {
                    Error::NoDevice(format!(
                        "no PCI device with vendor {vendor:04x} and device {device:04x} under {}: check `lspci -nn -d {vendor:04x}:{device:04x}`, that the bitstream is loaded, and rescan with `echo 1 > /sys/bus/pci/rescan`",
                        devices.display()
                    ))
                })
        }
    }
}

/// Name of the kernel driver the device is bound to, if any.
fn bound_driver(dir: &Path) -> Option<String> {
    let target = fs::read_link(dir.join("driver")).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

fn bind_help(bdf: &str) -> String {
    format!(
        "bind the device to vfio-pci: `sudo modprobe vfio-pci; echo vfio-pci | sudo tee /sys/bus/pci/devices/{bdf}/driver_override; echo {bdf} | sudo tee /sys/bus/pci/drivers_probe` (or `driverctl set-override {bdf} vfio-pci`)"
    )
}

/// How the BAR and DMA memory are reached.
enum Access {
    /// `resource0` and huge pages with physical addresses (root).
    Sysfs { hugepage_bytes: u64 },
    /// VFIO with a type 1 IOMMU.
    Vfio {
        container: File,
        _group: File,
        _device: File,
        next_iova: u64,
    },
}

struct Region {
    map: usize,
    offset: usize,
    view: usize,
}

/// A Pendulum card on the PCIe bus (see the module documentation).
pub struct PciCard {
    bdf: String,
    paths: HostPaths,
    bar: Bar,
    access: Access,
    /// DMA mappings and the bus address of each one's first byte.
    maps: Vec<(DmaMap, u64)>,
    regions: Vec<Region>,
    /// Huge page being carved into small regions: (map index, bytes used).
    carving: Option<(usize, usize)>,
    files_made: u64,
}

impl PciCard {
    /// Opens the card on the real machine. Prefer [`crate::open`], which also
    /// checks identity and version.
    pub fn open(addr: &str) -> Result<Self> {
        Self::open_with(&HostPaths::default(), addr)
    }

    /// Opens the card with sysfs, /dev and /proc under `root` (tests).
    pub fn open_with_root(root: &Path, addr: &str) -> Result<Self> {
        Self::open_with(&HostPaths::under(root), addr)
    }

    pub fn open_with(paths: &HostPaths, addr: &str) -> Result<Self> {
        let sel = PciSelector::parse(addr).ok_or_else(|| Error::BadAddress(addr.to_string()))?;
        let (bdf, dir) = find_device(paths, &sel)?;
        match bound_driver(&dir).as_deref() {
            Some("vfio-pci") => Self::open_vfio(paths, bdf, &dir),
            Some(other) => Err(Error::NoDevice(format!(
                "PCI device {bdf} is bound to the kernel driver `{other}`, which owns it: unbind it (`echo {bdf} | sudo tee /sys/bus/pci/devices/{bdf}/driver/unbind`), then either run as root or {}",
                bind_help(&bdf)
            ))),
            None => Self::open_sysfs(paths, bdf, &dir),
        }
    }

    fn open_sysfs(paths: &HostPaths, bdf: String, dir: &Path) -> Result<Self> {
        let res = dir.join("resource0");
        let file = OpenOptions::new().read(true).write(true).open(&res).map_err(|e| match e.kind() {
            io::ErrorKind::PermissionDenied => Error::Permission(format!(
                "cannot open {}: mapping the BAR through sysfs needs root; run as root, or {}",
                res.display(),
                bind_help(&bdf)
            )),
            io::ErrorKind::NotFound => Error::NoDevice(format!(
                "{} is missing: device {bdf} has no memory BAR 0; is it a Pendulum card (check `lspci -v -s {bdf}`)?",
                res.display()
            )),
            _ => Error::NoDevice(format!("cannot open {}: {e}", res.display())),
        })?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0) as usize;
        if len < 8 {
            return Err(Error::NoDevice(format!(
                "{} is {len} bytes: BAR 0 of {bdf} is too small to be a Pendulum card",
                res.display()
            )));
        }
        // Memory decoding on (`enable`) and bus mastering on (command register
        // bit 2, in config space) so the card may DMA.
        let enable = dir.join("enable");
        if read_trimmed(&enable).map(|s| s == "0").unwrap_or(false) {
            fs::write(&enable, "1").map_err(|e| {
                Error::Permission(format!(
                    "cannot enable {bdf} through {}: {e}; run as root",
                    enable.display()
                ))
            })?;
        }
        set_bus_master(&dir.join("config"), 0).map_err(|e| {
            Error::Permission(format!(
                "cannot turn on bus mastering for {bdf} in {}/config: {e}; run as root",
                dir.display()
            ))
        })?;
        let bar = Bar::map(&file, 0, len).map_err(|e| {
            Error::NoDevice(format!("cannot map {} ({len} bytes): {e}", res.display()))
        })?;
        let hugepage_bytes = hugepage_bytes(paths);
        Ok(Self::new(bdf, paths, bar, Access::Sysfs { hugepage_bytes }))
    }

    fn open_vfio(paths: &HostPaths, bdf: String, dir: &Path) -> Result<Self> {
        let group = fs::read_link(dir.join("iommu_group"))
            .ok()
            .and_then(|t| t.file_name().map(|n| n.to_string_lossy().into_owned()))
            .ok_or_else(|| {
                Error::vfio(format!(
                    "{bdf} is bound to vfio-pci but has no IOMMU group ({}/iommu_group): turn the IOMMU on (`intel_iommu=on` or `amd_iommu=on` on the kernel command line) and reboot",
                    dir.display()
                ))
            })?;
        let vfio_dir = paths.dev.join("vfio");
        let container_path = vfio_dir.join("vfio");
        let group_path = vfio_dir.join(&group);
        let open = |p: &Path| {
            OpenOptions::new().read(true).write(true).open(p).map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => Error::vfio_io(format!(
                    "{} does not exist: load VFIO with `sudo modprobe vfio-pci` and {}",
                    p.display(),
                    bind_help(&bdf)
                ), e),
                io::ErrorKind::PermissionDenied => Error::Permission(format!(
                    "cannot open {}: give your user the group with `sudo chown $USER {}` (and raise `ulimit -l` for DMA memory), or run as root",
                    p.display(),
                    p.display()
                )),
                _ => Error::vfio_io(format!("cannot open {}: {e}", p.display()), e),
            })
        };
        let container = open(&container_path)?;
        let group_file = open(&group_path)?;
        let not_vfio = |what: &str, e: io::Error| {
            Error::vfio_io(
                format!(
                    "{what} failed on {} ({e}): is it a VFIO device node? load `vfio-pci`",
                    container_path.display()
                ),
                e,
            )
        };
        let v = vfio::api_version(&container).map_err(|e| not_vfio("VFIO_GET_API_VERSION", e))?;
        if v != vfio::API_VERSION {
            return Err(Error::vfio(format!(
                "the kernel's VFIO API is version {v}, the driver knows {}",
                vfio::API_VERSION
            )));
        }
        let flags =
            vfio::group_flags(&group_file).map_err(|e| not_vfio("VFIO_GROUP_GET_STATUS", e))?;
        if flags & vfio::GROUP_FLAGS_VIABLE == 0 {
            return Err(Error::vfio(format!(
                "IOMMU group {group} is not viable: every device in /sys/kernel/iommu_groups/{group}/devices must be bound to vfio-pci or to no driver"
            )));
        }
        vfio::group_set_container(&group_file, &container)
            .map_err(|e| Error::vfio_io(format!("VFIO_GROUP_SET_CONTAINER: {e}"), e))?;
        let kind = if vfio::check_extension(&container, vfio::TYPE1V2_IOMMU).unwrap_or(false) {
            vfio::TYPE1V2_IOMMU
        } else if vfio::check_extension(&container, vfio::TYPE1_IOMMU).unwrap_or(false) {
            vfio::TYPE1_IOMMU
        } else {
            return Err(Error::vfio("the kernel offers no type 1 IOMMU to VFIO: turn the IOMMU on (`intel_iommu=on` or `amd_iommu=on`) and reboot"));
        };
        vfio::set_iommu(&container, kind)
            .map_err(|e| Error::vfio_io(format!("VFIO_SET_IOMMU: {e}"), e))?;
        let device = vfio::group_device(&group_file, &bdf)
            .map_err(|e| Error::vfio_io(format!("VFIO_GROUP_GET_DEVICE_FD for {bdf}: {e}"), e))?;
        let (size, offset, rflags) = vfio::region(&device, 0)
            .map_err(|e| Error::vfio_io(format!("BAR 0 region info: {e}"), e))?;
        if size < 8 || rflags & 4 == 0 {
            return Err(Error::NoDevice(format!(
                "BAR 0 of {bdf} is {size} bytes and {}mappable: not a Pendulum card",
                if rflags & 4 == 0 { "not " } else { "" }
            )));
        }
        let (_, cfg_off, _) = vfio::region(&device, vfio::CONFIG_REGION_INDEX)
            .map_err(|e| Error::vfio_io(format!("config region info: {e}"), e))?;
        set_bus_master_file(&device, cfg_off)
            .map_err(|e| Error::vfio_io(format!("cannot turn on bus mastering: {e}"), e))?;
        let bar = Bar::map(&device, offset, size as usize)
            .map_err(|e| Error::vfio_io(format!("cannot map BAR 0 of {bdf}: {e}"), e))?;
        Ok(Self::new(
            bdf,
            paths,
            bar,
            Access::Vfio {
                container,
                _group: group_file,
                _device: device,
                next_iova: VFIO_IOVA_BASE,
            },
        ))
    }

    fn new(bdf: String, paths: &HostPaths, bar: Bar, access: Access) -> Self {
        Self {
            bdf,
            paths: paths.clone(),
            bar,
            access,
            maps: Vec::new(),
            regions: Vec::new(),
            carving: None,
            files_made: 0,
        }
    }

    /// The device's PCI address.
    pub fn address(&self) -> &str {
        &self.bdf
    }

    /// True when the card is reached through VFIO (an IOMMU), false for sysfs.
    pub fn uses_vfio(&self) -> bool {
        matches!(self.access, Access::Vfio { .. })
    }

    /// Bytes of BAR 0.
    pub fn bar_bytes(&self) -> usize {
        self.bar.len()
    }

    fn bar_error(&self, offset: u32) -> Error {
        Error::Bar(format!(
            "register offset {offset:#x} is misaligned or beyond BAR 0 of {} ({} bytes)",
            self.bdf,
            self.bar.len()
        ))
    }

    fn alloc_vfio(&mut self, len: usize, mirrored: bool) -> Result<DmaRegion> {
        let Access::Vfio {
            container,
            next_iova,
            ..
        } = &mut self.access
        else {
            unreachable!()
        };
        let bytes = (len as u64).next_multiple_of(PAGE_BYTES);
        if mirrored && bytes != len as u64 {
            return Err(Error::dma(format!(
                "a mirrored region must be a multiple of {PAGE_BYTES} bytes, not {len}"
            )));
        }
        let file = sys::memfd("pendulum-dma", bytes)
            .map_err(|e| Error::dma_io(format!("memfd: {e}"), e))?;
        let map = DmaMap::map(&file, 0, bytes as usize, mirrored).map_err(|e| {
            Error::dma_io(format!("cannot map {bytes} bytes of DMA memory: {e}"), e)
        })?;
        let align = (len as u64).next_power_of_two().max(PAGE_BYTES);
        let iova = next_iova.next_multiple_of(align);
        vfio::map_dma(container, &map, iova, bytes).map_err(|e| {
            Error::vfio_io(format!(
                "VFIO_IOMMU_MAP_DMA of {bytes} bytes failed ({e}): raise the locked-memory limit (`ulimit -l unlimited`, or `memlock` in /etc/security/limits.conf)"
            ), e)
        })?;
        *next_iova = iova + bytes;
        self.maps.push((map, iova));
        self.regions.push(Region {
            map: self.maps.len() - 1,
            offset: 0,
            view: if mirrored { 2 * len } else { len },
        });
        Ok(DmaRegion {
            id: self.regions.len() - 1,
            iova,
            len,
            mirrored,
        })
    }

    fn alloc_hugepages(&mut self, len: usize, mirrored: bool) -> Result<DmaRegion> {
        let Access::Sysfs { hugepage_bytes } = self.access else {
            unreachable!()
        };
        let huge = hugepage_bytes as usize;
        let align = len.next_power_of_two().max(64);
        // Small regions share a huge page.
        if !mirrored && len <= huge {
            if let Some((m, used)) = self.carving {
                let off = used.next_multiple_of(align);
                if off + len <= huge {
                    self.carving = Some((m, off + len));
                    return Ok(self.push_region(m, off, len, false));
                }
            }
        }
        if mirrored && len % huge != 0 {
            return Err(Error::dma(format!(
                "a mirrored ring of {len} bytes needs an IOMMU, because huge pages of {huge} bytes cannot be mapped twice in smaller pieces: {}, or use rings that are a multiple of {huge} bytes",
                bind_help(&self.bdf)
            )));
        }
        let bytes = len.next_multiple_of(huge);
        let map = self.map_hugepages(bytes, mirrored)?;
        self.maps.push(map);
        let m = self.maps.len() - 1;
        if !mirrored && len < huge {
            self.carving = Some((m, len));
        }
        Ok(self.push_region(m, 0, len, mirrored))
    }

    fn push_region(&mut self, map: usize, offset: usize, len: usize, mirrored: bool) -> DmaRegion {
        self.regions.push(Region {
            map,
            offset,
            view: if mirrored { 2 * len } else { len },
        });
        let iova = self.map_iova(map) + offset as u64;
        DmaRegion {
            id: self.regions.len() - 1,
            iova,
            len,
            mirrored,
        }
    }

    fn map_iova(&self, map: usize) -> u64 {
        self.maps[map].1
    }

    fn map_hugepages(&mut self, bytes: usize, mirrored: bool) -> Result<(DmaMap, u64)> {
        let reserved = read_trimmed(&self.paths.proc_.join("sys/vm/nr_hugepages"))
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0);
        let Access::Sysfs { hugepage_bytes } = self.access else {
            unreachable!()
        };
        let want = (bytes as u64 / hugepage_bytes).max(16);
        if reserved == 0 {
            return Err(Error::HugePages(format!(
                "no huge pages are reserved: reserve some with `echo {want} | sudo tee /proc/sys/vm/nr_hugepages` ({} KiB each), or {}",
                hugepage_bytes / 1024,
                bind_help(&self.bdf)
            )));
        }
        let dir = self.paths.dev.join("hugepages");
        if !dir.is_dir() {
            return Err(Error::HugePages(format!(
                "no hugetlbfs at {}: mount one with `sudo mkdir -p {0} && sudo mount -t hugetlbfs nodev {0}`",
                dir.display()
            )));
        }
        self.files_made += 1;
        let path = dir.join(format!(
            "pendulum-{}-{}",
            std::process::id(),
            self.files_made
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|e| {
                Error::HugePages(format!(
                    "cannot create {}: {e}; run as root or make {} writable",
                    path.display(),
                    dir.display()
                ))
            })?;
        // The mapping keeps the pages; the name is not needed once mapped.
        let made = file
            .set_len(bytes as u64)
            .and_then(|_| DmaMap::map(&file, 0, bytes, mirrored));
        let _ = fs::remove_file(&path);
        let map = made.map_err(|e| {
            Error::HugePages(format!(
                "cannot get {bytes} bytes of huge pages ({e}): {reserved} are reserved and may be in use; reserve more with `echo {} | sudo tee /proc/sys/vm/nr_hugepages`",
                reserved + want
            ))
        })?;
        let iova = physical_address(
            &self.paths.proc_.join("self/pagemap"),
            map.vaddr(),
            bytes as u64,
            &self.bdf,
        )?;
        Ok((map, iova))
    }
}

/// Turns on memory decoding and bus mastering (command register, config
/// space offset 4, bits 1 and 2) in a config-space file at `base`.
fn set_bus_master(config: &Path, base: u64) -> io::Result<()> {
    let f = OpenOptions::new().read(true).write(true).open(config)?;
    set_bus_master_file(&f, base)
}

fn set_bus_master_file(f: &File, base: u64) -> io::Result<()> {
    let mut cmd = [0u8; 2];
    f.read_exact_at(&mut cmd, base + 4)?;
    let v = u16::from_le_bytes(cmd) | 0b110;
    f.write_all_at(&v.to_le_bytes(), base + 4)
}

/// Size of the default huge page, from `meminfo` (2 MiB if unreadable).
fn hugepage_bytes(paths: &HostPaths) -> u64 {
    fs::read_to_string(paths.proc_.join("meminfo"))
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("Hugepagesize:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .filter(|b| b.is_power_of_two() && *b >= PAGE_BYTES)
        .unwrap_or(2 << 20)
}

/// Physical address of `len` bytes mapped at `vaddr`, from the pagemap
/// (one little-endian u64 per 4 KiB page: bit 63 present, bits 0-54 the
/// frame number). Fails unless every page is present and the frames are
/// consecutive, since the card sees one contiguous range.
pub fn physical_address(pagemap: &Path, vaddr: u64, len: u64, bdf: &str) -> Result<u64> {
    let f = File::open(pagemap).map_err(|e| {
        Error::dma_io(
            format!(
            "cannot open {} ({e}): bus addresses of DMA memory come from it without an IOMMU; {}",
            pagemap.display(),
            bind_help(bdf)
        ),
            e,
        )
    })?;
    let pages = len.div_ceil(PAGE_BYTES) as usize;
    let mut raw = vec![0u8; pages * 8];
    f.read_exact_at(&mut raw, vaddr / PAGE_BYTES * 8)
        .map_err(|e| {
            Error::dma_io(
                format!(
                    "cannot read {} ({e}); {}",
                    pagemap.display(),
                    bind_help(bdf)
                ),
                e,
            )
        })?;
    let mut first = 0;
    for (i, e) in raw.chunks_exact(8).enumerate() {
        let e = u64::from_le_bytes(e.try_into().unwrap_or([0; 8]));
        let pfn = e & ((1 << 55) - 1);
        if e >> 63 == 0 {
            return Err(Error::dma(format!(
                "page {i} of DMA memory at {vaddr:#x} is not present in {}",
                pagemap.display()
            )));
        }
        if pfn == 0 {
            return Err(Error::Permission(format!(
                "{} shows no physical addresses to this process: reading them needs root (CAP_SYS_ADMIN); run as root, or {}",
                pagemap.display(),
                bind_help(bdf)
            )));
        }
        if i == 0 {
            first = pfn;
        } else if pfn != first + i as u64 {
            return Err(Error::HugePages(format!(
                "DMA memory at {vaddr:#x} is not physically contiguous (page {i}): are the pages from a hugetlbfs mount? check `mount | grep hugetlbfs`"
            )));
        }
    }
    Ok(first * PAGE_BYTES + vaddr % PAGE_BYTES)
}

impl Card for PciCard {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        let v = self
            .bar
            .read32(offset)
            .ok_or_else(|| self.bar_error(offset))?;
        // A card that fell off the bus (or a link down) reads all ones.
        if v == u32::MAX && offset == pendulum_layout::global::IDENTITY.offset {
            return Err(Error::NoResponse(format!(
                "{} reads all ones: the card is not answering on PCIe (link down, reset, or bitstream not loaded); check `lspci -vv -s {}`",
                self.bdf, self.bdf
            )));
        }
        Ok(v)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.bar
            .write32(offset, value)
            .ok_or_else(|| self.bar_error(offset))
    }

    fn alloc_dma(&mut self, len: usize, _kind: RegionKind, mirrored: bool) -> Result<DmaRegion> {
        if len == 0 {
            return Err(Error::dma("cannot allocate an empty region"));
        }
        let r = if self.uses_vfio() {
            self.alloc_vfio(len, mirrored)?
        } else {
            self.alloc_hugepages(len, mirrored)?
        };
        // Memory is handed out zeroed (a carved piece may follow older use).
        let v = r.len;
        self.dma_mut(&r).fill(0, v, 0);
        Ok(r)
    }

    fn dma(&self, region: &DmaRegion) -> DmaView<'_> {
        let view = match self.regions.get(region.id) {
            Some(r) => self.maps[r.map]
                .0
                .view()
                .subview(r.offset..r.offset + r.view),
            None => None,
        };
        view.unwrap_or(DmaView::from_slice(&[]))
    }

    fn dma_mut(&mut self, region: &DmaRegion) -> DmaViewMut<'_> {
        match self.regions.get(region.id) {
            Some(r) => {
                let (offset, view) = (r.offset, r.view);
                self.maps[r.map].0.view_mut(offset, view)
            }
            None => DmaViewMut::from_slice(&mut []),
        }
    }

    fn relax(&mut self) {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse() {
        assert_eq!(
            PciSelector::parse("0000:03:00.0"),
            Some(PciSelector::Address("0000:03:00.0".into()))
        );
        assert_eq!(
            PciSelector::parse("03:00.1"),
            Some(PciSelector::Address("0000:03:00.1".into()))
        );
        assert_eq!(
            PciSelector::parse("0000:AB:1f.7"),
            Some(PciSelector::Address("0000:ab:1f.7".into()))
        );
        assert_eq!(
            PciSelector::parse("pci:10ee:903f"),
            Some(PciSelector::Ids {
                vendor: 0x10ee,
                device: 0x903f
            })
        );
        for bad in [
            "",
            "3:0.0",
            "0000:03:00",
            "pci:10ee",
            "pci:xyz:1",
            "pci:10ee:12345",
            "sim:/x",
        ] {
            assert_eq!(PciSelector::parse(bad), None, "{bad}");
        }
    }
}
