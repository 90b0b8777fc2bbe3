/*
 * harness drives a CheckerBoard engine library as CheckerBoard does: it
 * loads it (dlopen on Linux, LoadLibrary on Windows), finds getmove,
 * enginecommand and islegal, and calls them as the lines on its standard
 * input say, writing what each call returned on its standard output. The
 * referee (package checkerboard's Harness and Check; cbengine's
 * TestHarness) plays whole games through it and checks every answer with
 * dama's move generator.
 *
 *   harness LIBRARY
 *
 * Requests, one a line; the board is 64 integers, board[x][y] with x the
 * outer index (board[0][0], board[0][1], ..., board[7][7]):
 *
 *   getmove COLOR MAXTIME INFO MOREINFO PLAYNOW_MS BOARD
 *       calls getmove; PLAYNOW_MS >= 0 sets *playnow to 1 that many
 *       milliseconds after the call began (from another thread), < 0 never.
 *       -> move RESULT ELAPSED_MS LATENCY_MS BOARD JUMPS NEWPIECE OLDPIECE
 *          FROMX FROMY TOX TOY PATH(24) DEL(24) DELPIECE(12)
 *          str TEXT
 *       LATENCY_MS is the time from setting *playnow to the return (-1
 *       when it was never set before the return).
 *   cmd TEXT        -> reply RESULT TEXT   (enginecommand; newlines as |)
 *   islegal COLOR FROM TO BOARD -> legal RESULT JUMPS ... (as after move)
 *   quit
 *
 * Build: cc -O2 -o harness harness.c -ldl -lpthread (Linux), or
 * x86_64-w64-mingw32-gcc -O2 -o harness.exe harness.c (Windows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#define CBAPI __stdcall /* CheckerBoard's convention; the only one on amd64 */
#else
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>
#define CBAPI
#endif

struct coor {
	int x, y;
};

struct CBmove {
	int jumps, newpiece, oldpiece;
	struct coor from, to;
	struct coor path[12];
	struct coor del[12];
	int delpiece[12];
};

typedef int(CBAPI *getmove_fn)(int board[8][8], int color, double maxtime, char str[1024],
			       int *playnow, int info, int moreinfo, struct CBmove *move);
typedef int(CBAPI *enginecommand_fn)(const char *command, char reply[1024]);
typedef int(CBAPI *islegal_fn)(int board[8][8], int color, int from, int to, struct CBmove *move);

static getmove_fn getmove;
static enginecommand_fn enginecommand;
static islegal_fn islegal;

/* now returns a monotonic time in milliseconds. */
static double now(void)
{
#ifdef _WIN32
	LARGE_INTEGER f, c;
	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&c);
	return 1000.0 * (double)c.QuadPart / (double)f.QuadPart;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1000.0 * ts.tv_sec + ts.tv_nsec / 1e6;
#endif
}

static void sleep_ms(int ms)
{
#ifdef _WIN32
	Sleep(ms);
#else
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
#endif
}

/* The playnow thread: sets *flag after delay ms unless cancelled. */
struct stopper {
	volatile int flag;
	volatile int cancel;
	int delay;
	volatile double set_at; /* when flag was set; 0 before */
};

#ifdef _WIN32
static DWORD WINAPI stopper_run(LPVOID arg)
#else
static void *stopper_run(void *arg)
#endif
{
	struct stopper *s = arg;
	double until = now() + s->delay;
	while (!s->cancel && now() < until)
		sleep_ms(1);
	if (!s->cancel) {
		s->set_at = now();
		s->flag = 1;
	}
	return 0;
}

static void fail(const char *what)
{
	fprintf(stderr, "harness: %s\n", what);
	exit(2);
}

/* read_board reads 64 integers from the rest of a request. */
static char *read_board(char *p, int board[8][8])
{
	for (int x = 0; x < 8; x++)
		for (int y = 0; y < 8; y++) {
			char *end;
			long v = strtol(p, &end, 10);
			if (end == p)
				fail("request: a board needs 64 integers");
			board[x][y] = (int)v;
			p = end;
		}
	return p;
}

static void print_board(int board[8][8])
{
	for (int x = 0; x < 8; x++)
		for (int y = 0; y < 8; y++)
			printf(" %d", board[x][y]);
}

static void print_move(const struct CBmove *m)
{
	printf(" %d %d %d %d %d %d %d", m->jumps, m->newpiece, m->oldpiece, m->from.x, m->from.y, m->to.x, m->to.y);
	for (int i = 0; i < 12; i++)
		printf(" %d %d", m->path[i].x, m->path[i].y);
	for (int i = 0; i < 12; i++)
		printf(" %d %d", m->del[i].x, m->del[i].y);
	for (int i = 0; i < 12; i++)
		printf(" %d", m->delpiece[i]);
}

/* one_line replaces the line breaks of s with '|'. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = '|';
}

static void do_getmove(char *p)
{
	int color, info, moreinfo, delay, board[8][8];
	double maxtime;
	int n;
	if (sscanf(p, "%d %lf %d %d %d%n", &color, &maxtime, &info, &moreinfo, &delay, &n) != 5)
		fail("getmove: want COLOR MAXTIME INFO MOREINFO PLAYNOW_MS BOARD");
	read_board(p + n, board);
	struct stopper s = {0, 0, delay, 0};
	char str[1024];
	memset(str, 0, sizeof str);
	struct CBmove m;
	memset(&m, 0xff, sizeof m); /* what the engine leaves unset shows */
#ifdef _WIN32
	HANDLE th = NULL;
	if (delay >= 0 && !(th = CreateThread(NULL, 0, stopper_run, &s, 0, NULL)))
		fail("CreateThread failed");
#else
	pthread_t th;
	if (delay >= 0 && pthread_create(&th, NULL, stopper_run, &s) != 0)
		fail("pthread_create failed");
#endif
	double t0 = now();
	int r = getmove(board, color, maxtime, str, (int *)&s.flag, info, moreinfo, &m);
	double t1 = now();
	s.cancel = 1;
	if (delay >= 0) {
#ifdef _WIN32
		WaitForSingleObject(th, INFINITE);
		CloseHandle(th);
#else
		pthread_join(th, NULL);
#endif
	}
	double latency = s.set_at > 0 && s.set_at <= t1 ? t1 - s.set_at : -1;
	printf("move %d %.3f %.3f", r, t1 - t0, latency);
	print_board(board);
	print_move(&m);
	str[sizeof str - 1] = 0;
	one_line(str);
	printf("\nstr %s\n", str);
}

static void do_islegal(char *p)
{
	int color, from, to, n, board[8][8];
	if (sscanf(p, "%d %d %d%n", &color, &from, &to, &n) != 3)
		fail("islegal: want COLOR FROM TO BOARD");
	read_board(p + n, board);
	struct CBmove m;
	memset(&m, 0, sizeof m);
	int r = islegal(board, color, from, to, &m);
	printf("legal %d", r);
	print_move(&m);
	printf("\n");
}

static void do_cmd(char *p)
{
	char reply[1024];
	memset(reply, 0, sizeof reply);
	while (*p == ' ')
		p++;
	int r = enginecommand(p, reply);
	reply[sizeof reply - 1] = 0;
	one_line(reply);
	printf("reply %d %s\n", r, reply);
}

static char line[8192];

int main(int argc, char **argv)
{
	if (argc != 2)
		fail("usage: harness LIBRARY");
#ifdef _WIN32
	HMODULE lib = LoadLibraryA(argv[1]);
	if (!lib)
		fail("LoadLibrary failed");
	getmove = (getmove_fn)(void *)GetProcAddress(lib, "getmove");
	enginecommand = (enginecommand_fn)(void *)GetProcAddress(lib, "enginecommand");
	islegal = (islegal_fn)(void *)GetProcAddress(lib, "islegal");
#else
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "harness: %s\n", dlerror());
		return 2;
	}
	getmove = (getmove_fn)dlsym(lib, "getmove");
	enginecommand = (enginecommand_fn)dlsym(lib, "enginecommand");
	islegal = (islegal_fn)dlsym(lib, "islegal");
#endif
	if (!getmove || !enginecommand)
		fail("the library lacks getmove or enginecommand");
	printf("ready islegal=%d\n", islegal != NULL);
	fflush(stdout);
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "getmove ", 8) == 0)
			do_getmove(line + 8);
		else if (strncmp(line, "cmd ", 4) == 0)
			do_cmd(line + 4);
		else if (strncmp(line, "islegal ", 8) == 0) {
			if (!islegal)
				fail("the library lacks islegal");
			do_islegal(line + 8);
		} else if (strcmp(line, "quit") == 0)
			break;
		else
			fail("unknown request");
		fflush(stdout);
	}
	return 0;
}
