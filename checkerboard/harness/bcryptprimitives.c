/*
 * A stand-in for Windows' bcryptprimitives.dll, for running the harness
 * under Wine 8 (Debian 12's), which lacks it: the Go runtime (1.24 and
 * later) takes its random numbers from ProcessPrng there and stops without
 * it. Windows 10 and later have the real one; this is for the wine run
 * only. ProcessPrng fills buf with random bytes from RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has.
 *
 * Build: x86_64-w64-mingw32-gcc -shared -o bcryptprimitives.dll bcryptprimitives.c
 * and put it beside harness.exe.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE buf, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(buf, n))
			return FALSE;
		buf += n;
		len -= n;
	}
	return TRUE;
}
