// Loads model/model.json (TF.js Layers format) and classifies the images in digits.json; the predictions are
// written into the page (#result holds them as JSON, body[data-status] becomes "done" or "error").
async function classifySamples(model) {
  const doc = await (await fetch('digits.json')).json();
  const n = doc.labels.length;
  const x = tf.tensor(doc.pixels, [n, 28, 28, 1]);
  const probs = model.predict(x);
  const values = Array.from(await probs.data());
  const predicted = Array.from(await probs.argMax(1).data());
  const box = document.getElementById('samples');
  for (let i = 0; i < n; i++) {
    const div = document.createElement('div');
    div.className = 'digit';
    const c = document.createElement('canvas');
    c.width = 28; c.height = 28; c.style.width = '56px';
    await tf.browser.toPixels(tf.tensor(doc.pixels.slice(i * 784, (i + 1) * 784), [28, 28]), c);
    div.appendChild(c);
    div.appendChild(document.createElement('br'));
    div.appendChild(document.createTextNode(`${predicted[i]} (label ${doc.labels[i]})`));
    box.appendChild(div);
  }
  const correct = predicted.filter((p, i) => p === doc.labels[i]).length;
  document.getElementById('accuracy').textContent = `${correct} / ${n}`;
  document.getElementById('result').textContent = JSON.stringify({predicted, probs: values, backend: tf.getBackend()});
}

function drawingPad(model) {
  const pad = document.getElementById('pad');
  const ctx = pad.getContext('2d');
  const reset = () => { ctx.fillStyle = 'black'; ctx.fillRect(0, 0, pad.width, pad.height); };
  reset();
  let down = false;
  pad.onpointerdown = () => { down = true; };
  pad.onpointerup = async () => {
    down = false;
    const img = tf.tidy(() => tf.image.resizeBilinear(tf.browser.fromPixels(pad, 1).toFloat(), [28, 28])
      .div(255).expandDims(0));
    document.getElementById('drawn').textContent = (await model.predict(img).argMax(1).data())[0];
  };
  pad.onpointermove = (e) => {
    if (!down) return;
    ctx.fillStyle = 'white';
    ctx.beginPath(); ctx.arc(e.offsetX, e.offsetY, 7, 0, 2 * Math.PI); ctx.fill();
  };
  document.getElementById('clear').onclick = reset;
}

(async () => {
  try {
    // ?backend=cpu (or wasm/webgl) picks the TF.js backend; by default TF.js picks the best available one
    const backend = new URLSearchParams(location.search).get('backend');
    if (backend) await tf.setBackend(backend);
    await tf.ready();
    const model = await tf.loadLayersModel('model/model.json');
    await classifySamples(model);
    drawingPad(model);
    document.body.dataset.status = 'done';
  } catch (e) {
    document.getElementById('result').textContent = 'error: ' + (e.stack || e);
    document.body.dataset.status = 'error';
  }
})();
