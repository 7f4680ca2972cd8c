import { render } from 'preact';
import { App } from './components/App.tsx';
import { applyTheme } from './lib/theme.ts';
import './styles.css';

applyTheme();
render(<App />, document.getElementById('app')!);
