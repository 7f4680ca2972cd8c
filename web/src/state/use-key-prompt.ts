import { useEffect, useState } from 'preact/hooks';
import { setKeyPrompt } from '../api/client.ts';
import { announce } from './changes.ts';

/**
 * The API key prompt: the client asks (on a 401) and waits; `submit` answers with the key the
 * person typed and announces it, so what was refused before loads again.
 */
export function useKeyPrompt(): { asking?: { invalid: boolean }; submit(key: string): void } {
  const [asking, setAsking] = useState<{ invalid: boolean; resolve: (key: string) => void }>();
  useEffect(() => {
    setKeyPrompt((invalid) => new Promise((resolve) => setAsking({ invalid, resolve })));
  }, []);
  return {
    asking: asking && { invalid: asking.invalid },
    submit: (key) => {
      asking?.resolve(key);
      setAsking(undefined);
      announce('key');
    },
  };
}
