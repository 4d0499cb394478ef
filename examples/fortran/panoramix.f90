! Fortran interface to the panoramix C API (include/panoramix/panoramix.h) through iso_c_binding.
! Every function keeps its C name and returns the C status (integer(c_int); PMX_OK = 0).
! Handles are type(c_ptr). Strings going in are Fortran strings ending in c_null_char
! (trim(name)//c_null_char); strings coming back (messages, names) are C pointers that
! pmx_string() turns into Fortran strings. Optional arrays and file names map to C's NULL.
!
! Layout for Fortran arrays: lambda(k, l) is column-major (PMX_COL_MAJOR, ld = k; the library
! copies it to row-major and back); an array declared the other way round, lambda(l, k), is
! exactly the row-major k x l matrix with ld = l (PMX_ROW_MAJOR, no copy).
module panoramix
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: pmx_string

  ! status codes (enum pmx_status_code)
  integer(c_int), parameter, public :: PMX_OK = 0, PMX_E_NULL_ARGUMENT = -1, &
      PMX_E_INVALID_ARGUMENT = -2, PMX_E_BAD_INPUT = -3, PMX_E_FILE = -4, PMX_E_UNSUPPORTED = -5, &
      PMX_E_STATE = -6, PMX_E_NO_MEMORY = -7, PMX_E_INTERNAL = -8
  ! enum pmx_device
  integer(c_int), parameter, public :: PMX_DEVICE_AUTO = 0, PMX_DEVICE_CPU = 1, &
      PMX_DEVICE_CUDA = 2, PMX_DEVICE_REFERENCE = 3
  ! enum pmx_trans, enum pmx_layout
  integer(c_int), parameter, public :: PMX_NO_TRANS = 0, PMX_TRANS = 1
  integer(c_int), parameter, public :: PMX_ROW_MAJOR = 0, PMX_COL_MAJOR = 1
  ! enum pmx_bed_bytes, enum pmx_scaling
  integer(c_int), parameter, public :: PMX_BED_WITH_MAGIC = 0, PMX_BED_ROWS_ONLY = 1
  integer(c_int), parameter, public :: PMX_SCALE_NONE = 0, PMX_SCALE_STANDARDIZE = 1, &
      PMX_SCALE_USER = 2
  ! the ABI this module was written for (PMX_ABI_VERSION of panoramix.h; Fortran names ignore case,
  ! so it cannot be called PMX_ABI_VERSION beside the function pmx_abi_version)
  integer(c_int), parameter, public :: PMX_MODULE_ABI_VERSION = 1

  public :: pmx_version, pmx_abi_version, pmx_status_name, pmx_status_string
  public :: pmx_context_create, pmx_context_destroy, pmx_context_last_error, &
      pmx_context_set_device, pmx_context_get_device, pmx_context_set_threads, &
      pmx_context_get_threads, pmx_context_set_device_memory
  public :: pmx_genotypes_open_bed, pmx_genotypes_open_bed_subset, pmx_genotypes_from_bed_bytes, &
      pmx_genotypes_destroy, pmx_genotypes_last_error, pmx_genotypes_dims, pmx_genotypes_device, &
      pmx_genotypes_sample_indices, pmx_genotypes_variant_indices
  public :: pmx_genotypes_compute_frequencies, pmx_genotypes_set_frequencies, &
      pmx_genotypes_get_frequencies, pmx_genotypes_set_scaling, pmx_genotypes_get_scaling, &
      pmx_genotypes_multiply

  interface
    type(c_ptr) function pmx_version() bind(C, name='pmx_version')
      import :: c_ptr
    end function
    integer(c_int) function pmx_abi_version() bind(C, name='pmx_abi_version')
      import :: c_int
    end function
    type(c_ptr) function pmx_status_name(status) bind(C, name='pmx_status_name')
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function
    type(c_ptr) function pmx_status_string(status) bind(C, name='pmx_status_string')
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function

    ! ---- context
    integer(c_int) function pmx_context_create(ctx) bind(C, name='pmx_context_create')
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: ctx
    end function
    subroutine pmx_context_destroy(ctx) bind(C, name='pmx_context_destroy')
      import :: c_ptr
      type(c_ptr), value :: ctx
    end subroutine
    type(c_ptr) function pmx_context_last_error(ctx) bind(C, name='pmx_context_last_error')
      import :: c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function pmx_context_set_device(ctx, device) bind(C, name='pmx_context_set_device')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: device
    end function
    integer(c_int) function pmx_context_get_device(ctx, device) bind(C, name='pmx_context_get_device')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: device
    end function
    integer(c_int) function pmx_context_set_threads(ctx, threads) bind(C, name='pmx_context_set_threads')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: threads
    end function
    integer(c_int) function pmx_context_get_threads(ctx, threads) bind(C, name='pmx_context_get_threads')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: threads
    end function
    integer(c_int) function pmx_context_set_device_memory(ctx, bytes) &
        bind(C, name='pmx_context_set_device_memory')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: bytes
    end function

    ! ---- genotype handles
    integer(c_int) function pmx_genotypes_open_bed(ctx, prefix, keep_file, extract_file, g) &
        bind(C, name='pmx_genotypes_open_bed')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), dimension(*), intent(in) :: prefix
      character(kind=c_char), dimension(*), intent(in), optional :: keep_file, extract_file
      type(c_ptr), intent(out) :: g
    end function
    integer(c_int) function pmx_genotypes_open_bed_subset(ctx, prefix, samples, n_keep_samples, &
        variants, n_keep_variants, g) bind(C, name='pmx_genotypes_open_bed_subset')
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: ctx
      character(kind=c_char), dimension(*), intent(in) :: prefix
      integer(c_int64_t), dimension(*), intent(in), optional :: samples, variants
      integer(c_int64_t), value :: n_keep_samples, n_keep_variants
      type(c_ptr), intent(out) :: g
    end function
    integer(c_int) function pmx_genotypes_from_bed_bytes(ctx, bytes, n_bytes, format, n_samples, &
        n_variants, samples, n_keep_samples, variants, n_keep_variants, g) &
        bind(C, name='pmx_genotypes_from_bed_bytes')
      import :: c_int, c_ptr, c_int8_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int8_t), dimension(*), intent(in) :: bytes
      integer(c_int64_t), value :: n_bytes, n_samples, n_variants, n_keep_samples, n_keep_variants
      integer(c_int), value :: format
      integer(c_int64_t), dimension(*), intent(in), optional :: samples, variants
      type(c_ptr), intent(out) :: g
    end function
    subroutine pmx_genotypes_destroy(g) bind(C, name='pmx_genotypes_destroy')
      import :: c_ptr
      type(c_ptr), value :: g
    end subroutine
    type(c_ptr) function pmx_genotypes_last_error(g) bind(C, name='pmx_genotypes_last_error')
      import :: c_ptr
      type(c_ptr), value :: g
    end function
    integer(c_int) function pmx_genotypes_dims(g, n_samples, n_variants) bind(C, name='pmx_genotypes_dims')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: g
      integer(c_int64_t), intent(out) :: n_samples, n_variants
    end function
    integer(c_int) function pmx_genotypes_device(g, device) bind(C, name='pmx_genotypes_device')
      import :: c_int, c_ptr
      type(c_ptr), value :: g
      integer(c_int), intent(out) :: device
    end function
    integer(c_int) function pmx_genotypes_sample_indices(g, index, count) &
        bind(C, name='pmx_genotypes_sample_indices')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: g
      integer(c_int64_t), dimension(*), intent(out) :: index
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function pmx_genotypes_variant_indices(g, index, count) &
        bind(C, name='pmx_genotypes_variant_indices')
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: g
      integer(c_int64_t), dimension(*), intent(out) :: index
      integer(c_int64_t), value :: count
    end function

    ! ---- frequencies and scaling
    integer(c_int) function pmx_genotypes_compute_frequencies(g, nonfounders, n_autosomes) &
        bind(C, name='pmx_genotypes_compute_frequencies')
      import :: c_int, c_ptr
      type(c_ptr), value :: g
      integer(c_int), value :: nonfounders, n_autosomes
    end function
    integer(c_int) function pmx_genotypes_set_frequencies(g, p, count) &
        bind(C, name='pmx_genotypes_set_frequencies')
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: g
      real(c_double), dimension(*), intent(in) :: p
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function pmx_genotypes_get_frequencies(g, p, count) &
        bind(C, name='pmx_genotypes_get_frequencies')
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: g
      real(c_double), dimension(*), intent(out) :: p
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function pmx_genotypes_set_scaling(g, scaling, scale, count) &
        bind(C, name='pmx_genotypes_set_scaling')
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: g
      integer(c_int), value :: scaling
      real(c_double), dimension(*), intent(in), optional :: scale
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function pmx_genotypes_get_scaling(g, scale, count) &
        bind(C, name='pmx_genotypes_get_scaling')
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: g
      real(c_double), dimension(*), intent(out) :: scale
      integer(c_int64_t), value :: count
    end function

    ! ---- the products: out <- op(Z) in + beta out
    integer(c_int) function pmx_genotypes_multiply(g, trans, layout, l, in, ld_in, beta, out, ld_out) &
        bind(C, name='pmx_genotypes_multiply')
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: g
      integer(c_int), value :: trans, layout
      integer(c_int64_t), value :: l, ld_in, ld_out
      real(c_double), dimension(*), intent(in) :: in
      real(c_double), value :: beta
      real(c_double), dimension(*), intent(inout) :: out
    end function

    integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
  end interface

contains

  !> A C string returned by the library (message, name, version) as a Fortran string.
  function pmx_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

end module panoramix
