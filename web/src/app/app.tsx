export function App() {
  return <h1>gemba</h1>;
}
