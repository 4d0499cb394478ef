! panoramix C API from Fortran: Z*Lambda and Z'*Lambda~ on a PLINK fileset, checked against this
! program's own decode of the .bed.
!
!   capi_example_fortran PREFIX     (reads PREFIX.bed/.bim/.fam; every sample a founder, autosomes)
!
! Z(i, j) = x(i, j) - 2 p(j) for a called genotype (x = copies of A1, .bim column 5), 0 for a missing
! call (no scaling here), p the A1 frequency over all samples. The check recomputes everything in
! extended precision from the .bed bytes and reports the largest componentwise relative error
! |got - exact| / sum_j |Z(i, j) Lambda(j, c)| (for Z'*Lambda~ with l >= 2 plus the extra term for
! missing calls that genotype_gemm.hpp documents). Exit status 1 above 1e-12.
!
! Build: gfortran panoramix.f90 example.f90 -L<build> -lpanoramix
program example
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int64, error_unit
  use panoramix
  implicit none

  integer, parameter :: ep = selected_real_kind(18)  ! extended precision for the oracle
  integer(c_int64_t), parameter :: l = 4
  real(c_double), parameter :: tolerance = 1e-12_c_double
  character(len=4096) :: prefix
  integer(int64) :: n, k, i, j, c, row_bytes, copies, called
  integer(int8), allocatable :: x(:, :), bytes(:)
  integer(int8) :: magic(3)
  real(c_double), allocatable :: p(:), p_lib(:), lambda(:, :), y(:, :), lt(:, :), w(:, :), w0(:, :)
  real(ep) :: exact, terms, z, m, two_p
  real(c_double) :: err_y, err_w
  integer(c_int64_t) :: n_lib, k_lib
  type(c_ptr) :: ctx, g, missing
  integer(c_int) :: status
  integer :: unit

  call get_command_argument(1, prefix)
  if (len_trim(prefix) == 0) then
    write (error_unit, '(a)') 'usage: capi_example_fortran PREFIX'
    stop 2
  end if
  print '(a, a, a, i0, a)', 'panoramix ', pmx_string(pmx_version()), ' (C ABI ', pmx_abi_version(), ')'
  if (pmx_abi_version() /= PMX_MODULE_ABI_VERSION) stop 'library ABI does not match this module'
  ! The module's copies of the status codes must be the library's.
  if (pmx_string(pmx_status_name(PMX_E_FILE)) /= 'PMX_E_FILE' .or. &
      pmx_string(pmx_status_name(PMX_E_STATE)) /= 'PMX_E_STATE' .or. &
      pmx_string(pmx_status_name(PMX_E_INTERNAL)) /= 'PMX_E_INTERNAL') stop 'status codes differ'

  ! The oracle's data: the .bed decoded here (x(i, j) = copies of A1 or -1), frequencies.
  n = count_lines(trim(prefix)//'.fam')
  k = count_lines(trim(prefix)//'.bim')
  row_bytes = (n + 3) / 4
  allocate (x(n, k), bytes(row_bytes), p(k), p_lib(k))
  open (newunit=unit, file=trim(prefix)//'.bed', access='stream', form='unformatted', status='old')
  read (unit) magic
  if (magic(1) /= int(z'6c', int8) .or. magic(2) /= int(z'1b', int8) .or. magic(3) /= 1_int8) &
    stop 'not a variant-major .bed file'
  do j = 1, k
    read (unit) bytes
    do i = 1, n
      ! 2 bits per call, first call in the low bits: 00 hom A1, 01 missing, 10 het, 11 hom A2
      select case (ibits(int(bytes((i - 1) / 4 + 1)), 2 * int(mod(i - 1, 4_int64)), 2))
      case (0); x(i, j) = 2
      case (1); x(i, j) = -1
      case (2); x(i, j) = 1
      case default; x(i, j) = 0
      end select
    end do
  end do
  close (unit)
  do j = 1, k
    copies = sum(int(x(:, j), int64), mask=x(:, j) >= 0)
    called = count(x(:, j) >= 0)
    p(j) = 0
    if (called > 0) p(j) = real(copies, c_double) / real(2 * called, c_double)
  end do

  ! A failing call first: creation failures leave their message in the context.
  call check(pmx_context_create(ctx), 'pmx_context_create', c_null_ptr)
  status = pmx_genotypes_open_bed(ctx, 'no/such/prefix'//c_null_char, g=missing)
  print '(a, a, a, a)', 'expected failure: ', pmx_string(pmx_status_name(status)), ': ', &
    pmx_string(pmx_context_last_error(ctx))
  if (status /= PMX_E_FILE .or. c_associated(missing)) stop 1

  ! The library: a handle on the fileset (cpu, 2 threads), PLINK frequencies, no scaling.
  call check(pmx_context_set_threads(ctx, 2_c_int), 'set_threads', ctx)
  call check(pmx_genotypes_open_bed(ctx, trim(prefix)//c_null_char, g=g), 'open_bed', ctx)
  call check_g(pmx_genotypes_dims(g, n_lib, k_lib), 'dims')
  print '(a, a, i0, a, i0, a)', trim(prefix), ': ', n_lib, ' samples x ', k_lib, ' variants'
  if (n_lib /= n .or. k_lib /= k) stop 'dimensions differ from the .fam/.bim line counts'
  call check_g(pmx_genotypes_compute_frequencies(g, 0_c_int, 0_c_int), 'compute_frequencies')
  call check_g(pmx_genotypes_get_frequencies(g, p_lib, k), 'get_frequencies')
  do j = 1, k
    ! Variants without calls: NaN from the library (compared as such), 0 here (no term anyway).
    if (count(x(:, j) >= 0) > 0 .and. p_lib(j) /= p(j)) stop 'frequencies differ'
  end do

  ! Y = Z Lambda, Fortran arrays in column-major order: lambda(k, l), y(n, l), beta = 0.
  allocate (lambda(k, l), y(n, l))
  call random_seed(put=[(17 + int(i), i = 1, 64)])
  call random_number(lambda)
  lambda = 2 * lambda - 1
  call check_g(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_COL_MAJOR, l, lambda, k, 0.0_c_double, &
                                      y, n), 'multiply (Z L)')
  err_y = 0
  do c = 1, l
    do i = 1, n
      exact = 0
      terms = 0
      do j = 1, k
        z = 0
        if (x(i, j) >= 0) z = real(x(i, j), ep) - 2 * real(p(j), ep)
        exact = exact + z * lambda(j, c)
        terms = terms + abs(z * lambda(j, c))
      end do
      err_y = max(err_y, rel(real(y(i, c), ep), exact, terms))
    end do
  end do

  ! W = Z' Lambda~ + W with arrays declared lt(l, n), w(l, k): that is the row-major n x l and
  ! k x l layout (ld = l) the kernels take directly, so nothing is copied.
  allocate (lt(l, n), w(l, k), w0(l, k))
  call random_number(lt)
  call random_number(w)
  lt = 2 * lt - 1
  w0 = w
  call check_g(pmx_genotypes_multiply(g, PMX_TRANS, PMX_ROW_MAJOR, l, lt, l, 1.0_c_double, w, l), &
               'multiply (Z'' L)')
  err_w = 0
  do j = 1, k
    two_p = 2 * real(p(j), ep)
    m = min(two_p, abs(1 - two_p), 2 - two_p)  ! smallest |Z| of a called genotype
    do c = 1, l
      exact = w0(c, j)
      terms = abs(exact)
      do i = 1, n
        if (x(i, j) >= 0) then
          z = real(x(i, j), ep) - two_p
          exact = exact + z * lt(c, i)
          terms = terms + abs(z * lt(c, i))
        else
          terms = terms + m * abs(lt(c, i))
        end if
      end do
      err_w = max(err_w, rel(real(w(c, j), ep), exact, terms))
    end do
  end do

  print '(a, es10.3)', 'max relative error Z*L:  ', err_y
  print '(a, es10.3)', 'max relative error Z''*L: ', err_w
  call pmx_genotypes_destroy(g)
  call pmx_context_destroy(ctx)
  deallocate (x, bytes, p, p_lib, lambda, y, lt, w, w0)
  if (.not. (err_y <= tolerance .and. err_w <= tolerance)) then
    write (error_unit, '(a)') 'FAILED: error above 1e-12'
    stop 1
  end if
  print '(a)', 'OK (tolerance 1e-12)'

contains

  integer(int64) function count_lines(path)
    character(len=*), intent(in) :: path
    character(len=1024) :: line
    integer :: u, ios
    count_lines = 0
    open (newunit=u, file=path, status='old', action='read')
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      count_lines = count_lines + 1
    end do
    close (u)
  end function

  real(c_double) function rel(got, exact, terms)
    real(ep), intent(in) :: got, exact, terms
    if (terms == 0) then
      rel = 0
      if (got /= exact) rel = huge(rel)
    else
      rel = real(abs(got - exact) / terms, c_double)
    end if
  end function

  ! Stops with the message kept by the context (or the status description without one).
  subroutine check(st, what, context)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    type(c_ptr), intent(in) :: context
    if (st == PMX_OK) return
    if (c_associated(context)) then
      write (error_unit, '(a, a, a)') what, ' failed: ', pmx_string(pmx_context_last_error(context))
    else
      write (error_unit, '(a, a, a)') what, ' failed: ', pmx_string(pmx_status_string(st))
    end if
    stop 2
  end subroutine

  ! Stops with the message kept by the genotype handle.
  subroutine check_g(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    if (st == PMX_OK) return
    write (error_unit, '(a, a, a)') what, ' failed: ', pmx_string(pmx_genotypes_last_error(g))
    stop 2
  end subroutine

end program example
