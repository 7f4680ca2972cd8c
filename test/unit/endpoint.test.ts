import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { ConfigurationError } from '../../src/errors/index.ts';
import { type EndpointEnvironment, resolveDockerEndpoint } from '../../src/sandbox/docker/endpoint.ts';

function environment(options: {
  env?: Record<string, string>;
  existing?: string[];
  files?: Record<string, string>;
}): EndpointEnvironment {
  const existing = new Set(options.existing ?? []);
  return {
    env: options.env ?? {},
    exists: (path) => existing.has(path),
    readFile: (path) => options.files?.[path],
    homeDir: '/home/ana',
  };
}

function contextFiles(name: string, host: string, configDir = '/home/ana/.docker'): Record<string, string> {
  const digest = createHash('sha256').update(name).digest('hex');
  return {
    [`${configDir}/config.json`]: JSON.stringify({ currentContext: name }),
    [`${configDir}/contexts/meta/${digest}/meta.json`]: JSON.stringify({
      Name: name,
      Endpoints: { docker: { Host: host } },
    }),
  };
}

describe('docker engine discovery', () => {
  test('PYTHON_SANDBOX_DOCKER_HOST wins over everything', () => {
    const found = resolveDockerEndpoint(
      environment({
        env: { PYTHON_SANDBOX_DOCKER_HOST: 'unix:///custom/sandbox.sock', DOCKER_HOST: 'unix:///other.sock' },
        existing: ['/var/run/docker.sock'],
      }),
    );
    assert.equal(found.socketPath, '/custom/sandbox.sock');
    assert.equal(found.source, 'PYTHON_SANDBOX_DOCKER_HOST');
  });

  test('DOCKER_HOST is used when PYTHON_SANDBOX_DOCKER_HOST is unset or empty', () => {
    const found = resolveDockerEndpoint(
      environment({
        env: { PYTHON_SANDBOX_DOCKER_HOST: '  ', DOCKER_HOST: 'unix:///run/user/1000/docker.sock' },
      }),
    );
    assert.equal(found.socketPath, '/run/user/1000/docker.sock');
    assert.equal(found.source, 'DOCKER_HOST');
  });

  test('an absolute socket path is accepted as well as a unix:// URL', () => {
    const found = resolveDockerEndpoint(environment({ env: { DOCKER_HOST: '/srv/podman.sock' } }));
    assert.equal(found.socketPath, '/srv/podman.sock');
  });

  test('the default socket is next, when it exists', () => {
    const found = resolveDockerEndpoint(
      environment({
        existing: ['/var/run/docker.sock'],
        files: contextFiles('colima', 'unix:///home/ana/.colima/docker.sock'),
      }),
    );
    assert.equal(found.socketPath, '/var/run/docker.sock');
    assert.equal(found.source, 'default socket');
  });

  test('the Docker CLI current context is last', () => {
    const found = resolveDockerEndpoint(
      environment({ files: contextFiles('colima', 'unix:///home/ana/.colima/default/docker.sock') }),
    );
    assert.equal(found.socketPath, '/home/ana/.colima/default/docker.sock');
    assert.equal(found.source, 'docker context "colima"');
    assert.ok(found.tried.includes('/var/run/docker.sock'));
  });

  test('DOCKER_CONFIG moves the CLI configuration and DOCKER_CONTEXT picks the context', () => {
    const files = {
      ...contextFiles('desktop-linux', 'unix:///home/ana/.docker/desktop/docker.sock', '/etc/dockercfg'),
      '/etc/dockercfg/config.json': JSON.stringify({ currentContext: 'something-else' }),
    };
    const found = resolveDockerEndpoint(
      environment({ env: { DOCKER_CONFIG: '/etc/dockercfg', DOCKER_CONTEXT: 'desktop-linux' }, files }),
    );
    assert.equal(found.socketPath, '/home/ana/.docker/desktop/docker.sock');
  });

  test('the "default" context and unreadable config files fall back to the default socket', () => {
    for (const files of <Array<Record<string, string>>>[
      { '/home/ana/.docker/config.json': JSON.stringify({ currentContext: 'default' }) },
      { '/home/ana/.docker/config.json': '{not json' },
      {},
    ]) {
      const found = resolveDockerEndpoint(environment({ files }));
      assert.equal(found.socketPath, '/var/run/docker.sock');
    }
  });

  for (const [variable, value, scheme] of [
    ['PYTHON_SANDBOX_DOCKER_HOST', 'tcp://10.0.0.5:2375', 'tcp'],
    ['DOCKER_HOST', 'ssh://admin@build-box', 'ssh'],
    ['DOCKER_HOST', 'http://localhost:2375', 'http'],
    ['PYTHON_SANDBOX_DOCKER_HOST', 'https://docker.example.com', 'https'],
    ['DOCKER_HOST', 'npipe:////./pipe/docker_engine', 'npipe'],
  ] as const) {
    test(`${scheme}:// in ${variable} is refused with the variable named`, () => {
      assert.throws(
        () =>
          resolveDockerEndpoint(
            environment({ env: { [variable]: value }, existing: ['/var/run/docker.sock'] }),
          ),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message.includes(variable) &&
          error.message.includes(`${scheme}://`) &&
          error.message.includes('unix://'),
      );
    });
  }

  test('a remote context is refused with the context named', () => {
    assert.throws(
      () =>
        resolveDockerEndpoint(environment({ files: contextFiles('prod', 'tcp://prod.example.com:2376') })),
      (error: unknown) =>
        error instanceof ConfigurationError && error.message.includes('docker context "prod"'),
    );
  });

  test('a relative path or a unix URL without an absolute path is refused', () => {
    assert.throws(
      () => resolveDockerEndpoint(environment({ env: { DOCKER_HOST: 'docker.sock' } })),
      ConfigurationError,
    );
    assert.throws(
      () => resolveDockerEndpoint(environment({ env: { DOCKER_HOST: 'unix://docker.sock' } })),
      ConfigurationError,
    );
  });

  test('with nothing found, the default socket is reported with everything tried', () => {
    const found = resolveDockerEndpoint(environment({ env: { XDG_RUNTIME_DIR: '/run/user/1000' } }));
    assert.equal(found.socketPath, '/var/run/docker.sock');
    assert.ok(found.tried.includes('/run/user/1000/docker.sock'));
    assert.ok(found.tried.some((t) => t.includes('config.json')));
  });
});
