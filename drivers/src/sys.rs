//! The driver's only `unsafe` code: memory mappings (a PCIe BAR, huge-page
//! DMA memory, the simulator's shared host memory) and VFIO ioctls, each
//! behind a safe API that checks every offset before touching memory.
//!
//! Written against `libc` and `memmap2` by hand: `memmap2` cannot map a file
//! twice back to back (the mirrored rings), and `vfio-ioctls` (rust-vmm)
//! brings in the VMM crates for a dozen ioctls.

use crate::{DmaView, DmaViewMut};
use memmap2::{MmapMut, MmapOptions, MmapRaw};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};

/// A file both this process and the simulator map: the simulated card's host memory.
pub struct SharedMem {
    map: MmapMut,
}

impl SharedMem {
    /// Maps all of `file` (its current length) read-write, shared.
    pub fn map(file: &File) -> io::Result<Self> {
        // SAFETY: the simulator process writes this file too, which Rust's
        // aliasing rules cannot see. It is safe because the simulator is
        // driven by this process: it only runs while a request of ours is in
        // flight, and a request needs `&mut` of the card, so no slice handed
        // out by `bytes`/`bytes_mut` is alive while the other side writes.
        // The file is never truncated while mapped (the server only sets its
        // length before it listens), so no access can fault.
        let map = unsafe { MmapOptions::new().map_mut(file)? };
        Ok(Self { map })
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.map
    }
}

/// A mapped register window (a BAR): 32-bit volatile accesses at checked offsets.
pub struct Bar {
    map: MmapRaw,
}

impl Bar {
    /// Maps `len` bytes of `file` from `offset` (sysfs `resource0`, or a VFIO
    /// device fd at the BAR region's offset).
    pub fn map(file: &File, offset: u64, len: usize) -> io::Result<Self> {
        let map = MmapOptions::new().offset(offset).len(len).map_raw(file)?;
        Ok(Self { map })
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// `None` when `offset` is misaligned or past the window.
    fn ptr(&self, offset: u32) -> Option<*mut u32> {
        let off = offset as usize;
        (off % 4 == 0 && off.checked_add(4)? <= self.map.len())
            // `wrapping_add` keeps this safe code; the bound was checked above.
            .then(|| self.map.as_mut_ptr().wrapping_add(off) as *mut u32)
    }

    pub fn read32(&self, offset: u32) -> Option<u32> {
        let p = self.ptr(offset)?;
        // SAFETY: `p` is 4-byte aligned (the map is page aligned, the offset
        // a multiple of 4) and inside the mapping, which lives as long as
        // `self`. A register read must be one 32-bit access that the compiler
        // neither merges nor drops, hence volatile.
        Some(u32::from_le(unsafe { std::ptr::read_volatile(p) }))
    }

    pub fn write32(&self, offset: u32, value: u32) -> Option<()> {
        let p = self.ptr(offset)?;
        // SAFETY: as in `read32`: aligned, in bounds, mapped for `self`'s life.
        unsafe { std::ptr::write_volatile(p, value.to_le()) };
        Some(())
    }
}

/// DMA memory: `len` bytes of a file (huge pages, or a memfd under VFIO)
/// mapped once, or twice back to back when mirrored.
pub struct DmaMap {
    ptr: *mut u8,
    len: usize,
    mirrored: bool,
}

// The mapping is plain memory owned by this value.
// SAFETY: nothing in `DmaMap` is tied to the thread that created it.
unsafe impl Send for DmaMap {}

impl DmaMap {
    /// Maps `len` bytes of `file` at `offset` (both multiples of the file's
    /// page size); when `mirrored`, the same bytes again right after them.
    pub fn map(file: &File, offset: u64, len: usize, mirrored: bool) -> io::Result<Self> {
        let total = if mirrored { 2 * len } else { len };
        let off = libc::off_t::try_from(offset)
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: a fresh anonymous PROT_NONE reservation at an address the
        // kernel picks; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let copies = if mirrored { 2 } else { 1 };
        for i in 0..copies {
            let at = (base as *mut u8).wrapping_add(i * len);
            // SAFETY: MAP_FIXED replaces part of the reservation made above,
            // which this function owns; `at..at + len` lies inside it.
            let p = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_FIXED | libc::MAP_POPULATE,
                    file.as_raw_fd(),
                    off,
                )
            };
            if p == libc::MAP_FAILED {
                let e = io::Error::last_os_error();
                // SAFETY: unmaps only the reservation made above.
                unsafe { libc::munmap(base, total) };
                return Err(e);
            }
        }
        Ok(Self {
            ptr: base as *mut u8,
            len,
            mirrored,
        })
    }

    /// Virtual address of the first byte.
    pub fn vaddr(&self) -> u64 {
        self.ptr as u64
    }

    fn view_len(&self) -> usize {
        if self.mirrored {
            2 * self.len
        } else {
            self.len
        }
    }

    /// The mapping as the card writes it: no plain slice, since the card
    /// writes by DMA at any time.
    pub fn view(&self) -> DmaView<'_> {
        // SAFETY: the view is mapped read-write for the life of `self` (it is
        // unmapped only in `drop`). The card writes it by DMA at any time,
        // which `DmaView` allows: it reads with atomic loads, and hands out
        // slices only of bytes the card announced (`DmaView::announced`,
        // whose callers vouch for them). In this process, memory is written
        // only through `view_mut`, which takes `&mut self` and so cannot
        // overlap this borrow.
        unsafe { DmaView::from_raw(self.ptr, self.view_len()) }
    }

    /// `len` bytes from `offset` of the mapping for software to write (an
    /// empty view when they reach past it).
    pub fn view_mut(&mut self, offset: usize, len: usize) -> DmaViewMut<'_> {
        let fits = offset
            .checked_add(len)
            .is_some_and(|end| end <= self.view_len());
        let (at, len) = if fits { (offset, len) } else { (0, 0) };
        // SAFETY: `at..at + len` lies inside the mapping (checked above),
        // which stays mapped read-write for the life of `self`; `&mut self`
        // makes this the only view of it in this process (`view` takes
        // `&self`). The card may read it or DMA into it meanwhile, which
        // `DmaViewMut` allows: it writes through raw pointers, never a
        // `&mut [u8]`.
        unsafe { DmaViewMut::from_raw(self.ptr.wrapping_add(at), len) }
    }
}

impl Drop for DmaMap {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the range `map` reserved; no slice of it
        // outlives `self`.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.view_len()) };
    }
}

/// VFIO ioctls (linux/vfio.h), type 1 IOMMU.
pub mod vfio {
    use super::*;

    const BASE: libc::c_ulong = (b';' as libc::c_ulong) << 8 | 100;
    const GET_API_VERSION: libc::c_ulong = BASE;
    const CHECK_EXTENSION: libc::c_ulong = BASE + 1;
    const SET_IOMMU: libc::c_ulong = BASE + 2;
    const GROUP_GET_STATUS: libc::c_ulong = BASE + 3;
    const GROUP_SET_CONTAINER: libc::c_ulong = BASE + 4;
    const GROUP_GET_DEVICE_FD: libc::c_ulong = BASE + 6;
    const DEVICE_GET_REGION_INFO: libc::c_ulong = BASE + 8;
    const IOMMU_MAP_DMA: libc::c_ulong = BASE + 13;
    pub const API_VERSION: i32 = 0;
    pub const TYPE1_IOMMU: i32 = 1;
    pub const TYPE1V2_IOMMU: i32 = 3;
    pub const GROUP_FLAGS_VIABLE: u32 = 1;
    pub const CONFIG_REGION_INDEX: u32 = 7;

    fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
        if ret < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(ret)
        }
    }

    pub fn api_version(container: &File) -> io::Result<i32> {
        // SAFETY: an argument-less ioctl on a file we own.
        check(unsafe { libc::ioctl(container.as_raw_fd(), GET_API_VERSION) })
    }

    pub fn check_extension(container: &File, ext: i32) -> io::Result<bool> {
        // SAFETY: the argument is an integer, passed by value.
        check(unsafe { libc::ioctl(container.as_raw_fd(), CHECK_EXTENSION, ext as libc::c_ulong) })
            .map(|r| r > 0)
    }

    pub fn set_iommu(container: &File, kind: i32) -> io::Result<()> {
        // SAFETY: the argument is an integer, passed by value.
        check(unsafe { libc::ioctl(container.as_raw_fd(), SET_IOMMU, kind as libc::c_ulong) })
            .map(drop)
    }

    #[repr(C)]
    struct GroupStatus {
        argsz: u32,
        flags: u32,
    }

    pub fn group_flags(group: &File) -> io::Result<u32> {
        let mut st = GroupStatus {
            argsz: std::mem::size_of::<GroupStatus>() as u32,
            flags: 0,
        };
        // SAFETY: the kernel writes at most `argsz` bytes into `st`, which lives across the call.
        check(unsafe {
            libc::ioctl(
                group.as_raw_fd(),
                GROUP_GET_STATUS,
                &mut st as *mut GroupStatus,
            )
        })?;
        Ok(st.flags)
    }

    pub fn group_set_container(group: &File, container: &File) -> io::Result<()> {
        let fd: libc::c_int = container.as_raw_fd();
        // SAFETY: the kernel reads one int from `&fd`, which lives across the call.
        check(unsafe {
            libc::ioctl(
                group.as_raw_fd(),
                GROUP_SET_CONTAINER,
                &fd as *const libc::c_int,
            )
        })
        .map(drop)
    }

    /// The device's fd, by its PCI address.
    pub fn group_device(group: &File, bdf: &str) -> io::Result<File> {
        let name = std::ffi::CString::new(bdf)
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: the kernel reads a NUL-terminated string that lives across the call.
        let fd =
            check(unsafe { libc::ioctl(group.as_raw_fd(), GROUP_GET_DEVICE_FD, name.as_ptr()) })?;
        // SAFETY: the ioctl returned a new fd that nothing else owns.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    #[repr(C)]
    #[derive(Default)]
    struct RegionInfo {
        argsz: u32,
        flags: u32,
        index: u32,
        cap_offset: u32,
        size: u64,
        offset: u64,
    }

    /// (size, offset in the device fd, flags) of region `index`.
    pub fn region(device: &File, index: u32) -> io::Result<(u64, u64, u32)> {
        let mut info = RegionInfo {
            argsz: std::mem::size_of::<RegionInfo>() as u32,
            index,
            ..Default::default()
        };
        // SAFETY: the kernel fills at most `argsz` bytes of `info`, which lives across the call.
        check(unsafe {
            libc::ioctl(
                device.as_raw_fd(),
                DEVICE_GET_REGION_INFO,
                &mut info as *mut RegionInfo,
            )
        })?;
        Ok((info.size, info.offset, info.flags))
    }

    #[repr(C)]
    struct DmaMapArg {
        argsz: u32,
        flags: u32,
        vaddr: u64,
        iova: u64,
        size: u64,
    }

    /// Maps `size` bytes at `map`'s first byte to bus address `iova`, for reads and writes by the device.
    pub fn map_dma(container: &File, map: &DmaMap, iova: u64, size: u64) -> io::Result<()> {
        let arg = DmaMapArg {
            argsz: std::mem::size_of::<DmaMapArg>() as u32,
            flags: 1 | 2,
            vaddr: map.vaddr(),
            iova,
            size,
        };
        // SAFETY: the kernel reads `arg`; the memory it names belongs to
        // `map`, and the caller keeps `map` alive while the device may use it.
        check(unsafe {
            libc::ioctl(
                container.as_raw_fd(),
                IOMMU_MAP_DMA,
                &arg as *const DmaMapArg,
            )
        })
        .map(drop)
    }
}

/// An anonymous memory file (memfd) of `len` bytes, for DMA memory under VFIO.
pub fn memfd(name: &str, len: u64) -> io::Result<File> {
    let c =
        std::ffi::CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is NUL-terminated and lives across the call.
    let fd = unsafe { libc::memfd_create(c.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: memfd_create returned a new fd that nothing else owns.
    let f = unsafe { File::from_raw_fd(fd) };
    f.set_len(len)?;
    Ok(f)
}
