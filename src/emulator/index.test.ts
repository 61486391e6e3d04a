import { describe, expect, it } from 'vitest';
import { parseEmulatorArgs, runEmulatorCli } from './index.js';

describe('parseEmulatorArgs', () => {
  it.each([
    { name: 'defaults', argv: [], want: { port: 8788, host: '127.0.0.1' } },
    { name: 'separate values', argv: ['--port', '9000', '--host', '0.0.0.0'], want: { port: 9000, host: '0.0.0.0' } },
    { name: 'equals form', argv: ['--port=0'], want: { port: 0, host: '127.0.0.1' } },
  ])('$name', ({ argv, want }) => {
    expect(parseEmulatorArgs(argv)).toStrictEqual(want);
  });

  it.each([['--port', 'x'], ['--port'], ['--verbose']])('rejects %j', (...argv) => {
    expect(() => parseEmulatorArgs(argv)).toThrow(/emulator:/);
  });
});

describe('runEmulatorCli', () => {
  it('starts, prints one line with the URL, answers, and closes', async () => {
    const lines: string[] = [];
    const before = process.listenerCount('SIGTERM');
    const emu = await runEmulatorCli(['--port', '0'], {}, (l) => lines.push(l));
    expect(lines).toStrictEqual([`Gemini emulator listening on ${emu.url}`]);
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${emu.url}/v1beta/models?key=k`);
    expect(res.status).toBe(200);
    await emu.close();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
