// app.js — kubesim's web view (issue 32): reads the server's event stream
// (/api/events) and draws the live sequence diagram, the step narration,
// the eight stages, the evidence of a clicked arrow, the cluster's nodes
// and events, the question of a step, and (with ?key=) the teacher's
// controls. The contract with the server is web-protocol.md; no library,
// no build step. Messages are queued and drawn once per animation frame,
// so a burst of thousands costs one layout.
'use strict';

(function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const KEY = new URLSearchParams(location.search).get('key') || '';

  // ---- words -------------------------------------------------------------

  const WORDS = {
    en: {
      next: 'Next ▶', restart: 'Restart ↻', auto: '▶ auto', step: '❚❚ step', off: 'gate off',
      modeTitle: 'auto / step (s)', question: 'Question', hide: 'hide', showQuestion: 'show question',
      reveal: 'Reveal answer', follow: '↓ follow', narrationTitle: 'Now', stagesTitle: 'Eight stages',
      evidenceTab: 'Evidence', clusterTab: 'Nodes & events', nodesTitle: 'Nodes', eventsTitle: 'Events',
      connecting: 'connecting', live: 'live', reconnecting: 'reconnecting…', ended: 'ended',
      endedErr: 'ended with an error', offline: 'offline', denied: 'key rejected',
      heldAfter: (n, c) => `held after stage ${n} (${c})`, heldStep: (o) => `held before the next step: ${o}`,
      waiting: 'Waiting for the first request…', pickArrow: 'Click an arrow to see what the running cluster recorded for it.',
      loading: 'loading…', noEvidence: 'No evidence for this arrow.', evidenceErr: 'Could not load the evidence',
      answered: (k, v) => `${k} of ${v} answered`, chooseHint: 'Click your answer.', chosen: 'Your answer is in.',
      rightMarked: 'The right answer is marked.', notAsked: 'This question is no longer asked.',
      waitReveal: 'The answer can be revealed once the step has finished.', noNodes: 'no nodes yet', noEvents: 'no events yet',
      pods: 'pods', speed: 'speed', classLang: 'class language (l)', myLang: '中文',
      noScenario: 'Watching the cluster.', result: 'result', error: 'error', replay: 'replay',
      legend: { request: 'request', response: 'response', etcd: 'etcd write', watch: 'watch', status: 'status', loop: 'own work', terminated: 'closed', stage: 'stage' },
      lifeline: { client: 'client', apiserver: 'API server', etcd: 'etcd', scheduler: 'scheduler', controllers: 'controllers' },
      lanes: { aggregator: 'aggregator', 'kube-apiserver': 'kube-apiserver', apiextensions: 'apiextensions' },
      outcome: { served: 'served', delegated: 'delegated', 'not found': 'not found' },
      stage: ['admitted', 'persisted', 'scheduler notified', 'scheduled', 'binding persisted',
        'kubelet notified, containers created', 'status reported', 'status persisted'],
    },
    zh: {
      next: '下一步 ▶', restart: '重新开始 ↻', auto: '▶ 自动', step: '❚❚ 单步', off: '闸门关闭',
      modeTitle: '自动 / 单步 (s)', question: '提问', hide: '收起', showQuestion: '显示问题',
      reveal: '公布答案', follow: '↓ 跟随', narrationTitle: '当前', stagesTitle: '八个阶段',
      evidenceTab: '证据', clusterTab: '节点与事件', nodesTitle: '节点', eventsTitle: '事件',
      connecting: '连接中', live: '实时', reconnecting: '重新连接中…', ended: '已结束',
      endedErr: '结束（有错误）', offline: '已断开', denied: '密钥无效',
      heldAfter: (n, c) => `在阶段 ${n} 之后暂停（${c}）`, heldStep: (o) => `在下一步之前暂停：${o}`,
      waiting: '等待第一个请求……', pickArrow: '点击一个箭头，查看运行中的集群为它记录的证据。',
      loading: '加载中……', noEvidence: '这个箭头没有证据。', evidenceErr: '无法加载证据',
      answered: (k, v) => `已回答 ${k} / ${v}`, chooseHint: '点击你的答案。', chosen: '已收到你的答案。',
      rightMarked: '已标出正确答案。', notAsked: '这个问题已不再提问。',
      waitReveal: '这一步结束后才能公布答案。', noNodes: '还没有节点', noEvents: '还没有事件',
      pods: '个 Pod', speed: '速度', classLang: '课堂语言 (l)', myLang: 'EN',
      noScenario: '正在观察集群。', result: '结果', error: '错误', replay: '回放',
      legend: { request: '请求', response: '响应', etcd: 'etcd 写入', watch: 'watch 事件', status: '状态上报', loop: '组件内部', terminated: 'watch 关闭', stage: '阶段' },
      lifeline: { client: '客户端', apiserver: 'API 服务器', etcd: 'etcd', scheduler: '调度器', controllers: '控制器' },
      lanes: { aggregator: 'aggregator', 'kube-apiserver': 'kube-apiserver', apiextensions: 'apiextensions' },
      outcome: { served: '处理', delegated: '委托', 'not found': '未找到' },
      stage: ['已准入', '已持久化', '调度器已收到', '已调度', '绑定已持久化',
        'kubelet 已收到并创建容器', '状态已上报', '状态已持久化'],
    },
  };

  const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16];
  const FIXED_ORDER = ['client', 'apiserver', 'etcd', 'scheduler', 'controllers'];
  const BASE_LIFELINES = ['client', 'apiserver', 'etcd'];
  const LANE_OFFSET = { aggregator: -0.3, 'kube-apiserver': 0, apiextensions: 0.3, 'not-found': 0.44 };
  const SELF_KINDS = new Set(['schedule', 'runtime', 'controller']);
  const KINDS = ['request', 'response', 'etcd', 'watch', 'status', 'schedule', 'runtime', 'controller', 'terminated'];
  const GEO = { gutter: 66, pad: 10, unitMin: 74, rowH: 50, headH: 60, chainHeadH: 92, lineY: 31 };

  // ---- state -------------------------------------------------------------

  const S = {
    role: 'viewer', epoch: null, scenario: null,
    classLang: 'en', localLang: null, drawnLang: null, mode: 'off', speed: 1, canRestart: false, replay: false,
    conn: 'connecting', ended: null, held: [],
    arrows: [], byId: new Map(), lifelines: BASE_LIFELINES.slice(), chain: false,
    rendered: 0, geo: null, layoutDirty: true, selected: null,
    firstPod: null, done: new Set(), stageArrow: {},
    step: null, question: null, cluster: null, following: true,
  };
  const dirty = new Set();
  const queue = [];
  let flushScheduled = false;
  let evidenceToken = 0;

  const $ = (sel) => document.querySelector(sel);
  const lang = () => (S.localLang || S.classLang) === 'zh' ? 'zh' : 'en';
  const w = (k) => WORDS[lang()][k] !== undefined ? WORDS[lang()][k] : WORDS.en[k];
  const inLang = (txt) => !txt ? '' : (typeof txt === 'string' ? txt : (txt[lang()] || txt.en || ''));

  /** el makes an element in the SVG namespace with attrs, children optional text. */
  function el(name, attrs, text) {
    const n = document.createElementNS(SVGNS, name);
    for (const k in attrs) n.setAttribute(k, attrs[k]);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  /** h makes an HTML element with a class and optional text. */
  function h(name, cls, text) {
    const n = document.createElement(name);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  // ---- the stream --------------------------------------------------------

  /** connect opens the event stream; EventSource reconnects by itself with Last-Event-ID. */
  function connect() {
    const url = '/api/events' + (KEY ? '?key=' + encodeURIComponent(KEY) : '');
    const es = new EventSource(url);
    es.onopen = () => { S.conn = 'live'; dirty.add('status'); schedule(); };
    es.onerror = () => {
      S.conn = 'reconnecting';
      if (es.readyState === EventSource.CLOSED) reconnectAfterRefusal(url);
      dirty.add('status'); schedule();
    };
    es.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m && typeof m.t === 'string') { queue.push(m); schedule(); }
    };
  }

  /**
   * reconnectAfterRefusal handles a stream the browser gave up on (an
   * answer other than 200 ends EventSource's own retries): a 403 means the
   * key is wrong, and the page stops; anything else, it connects again
   * after a pause, from the start of the log.
   */
  async function reconnectAfterRefusal(url) {
    const ctl = new AbortController();
    let status = 0;
    try {
      const r = await fetch(url, { signal: ctl.signal });
      status = r.status;
    } catch (e) { /* the server is away */ }
    ctl.abort();
    if (status === 403) {
      S.conn = 'denied';
      dirty.add('status'); schedule();
      return;
    }
    setTimeout(connect, 3000);
  }

  /** schedule asks for one flush at the next frame (or soon, where frames are throttled). */
  function schedule() {
    if (flushScheduled) return;
    flushScheduled = true;
    requestAnimationFrame(flush);
    setTimeout(flush, 200);
  }

  /** flush applies every queued message to the state, then redraws what they changed. */
  function flush() {
    if (!flushScheduled) return;
    flushScheduled = false;
    const batch = queue.splice(0, queue.length);
    for (const m of batch) {
      const fn = HANDLERS[m.t];
      if (fn) fn(m);
    }
    render();
  }

  const HANDLERS = {
    hello: onHello, session: onSession, arrow: onArrow, hold: onHold, step: onStep,
    control: onControl, reveal: onReveal, tally: onTally, cluster: onCluster, end: onEnd,
  };

  function onHello(m) {
    if (S.epoch !== null && m.epoch !== S.epoch) clearSession();
    S.role = m.role === 'teacher' ? 'teacher' : 'viewer';
    S.epoch = m.epoch;
    if (m.scenario !== undefined) S.scenario = m.scenario;
    applySettings(m);
    S.canRestart = !!m.canRestart;
    S.replay = !!m.replay;
    S.conn = 'live';
    dirty.add('all');
  }

  function onSession(m) {
    clearSession();
    S.epoch = m.epoch;
    S.scenario = m.scenario || null;
    dirty.add('all');
  }

  /** clearSession forgets everything of the previous epoch's log. */
  function clearSession() {
    Object.assign(S, {
      ended: null, held: [], arrows: [], byId: new Map(), lifelines: BASE_LIFELINES.slice(),
      chain: false, rendered: 0, layoutDirty: true, selected: null, firstPod: null,
      done: new Set(), stageArrow: {}, step: null, question: null, cluster: null, following: true,
    });
    evidenceToken++;
    showEvidencePlaceholder();
    dirty.add('all');
  }

  function onArrow(m) {
    if (S.byId.has(m.id)) return; // a resumed stream may repeat one
    S.arrows.push(m);
    S.byId.set(m.id, m);
    for (const name of [m.from, m.to]) addLifeline(name);
    if (!S.chain && m.hops && m.hops.length && (m.to === 'apiserver')) { S.chain = true; S.layoutDirty = true; }
    noteStage(m);
    dirty.add('rows');
  }

  /** addLifeline adds a lifeline the first time it occurs, in the protocol's order. */
  function addLifeline(name) {
    if (!name || S.lifelines.includes(name)) return;
    S.lifelines.push(name);
    S.lifelines.sort(compareLifelines);
    S.layoutDirty = true;
  }

  function lifelineRank(name) {
    const i = FIXED_ORDER.indexOf(name);
    if (i >= 0) return [0, i, ''];
    if (name.startsWith('kubelet/')) return [1, 0, name.slice(8)];
    return [2, 0, name];
  }

  function compareLifelines(a, b) {
    const ra = lifelineRank(a), rb = lifelineRank(b);
    if (ra[0] !== rb[0]) return ra[0] - rb[0];
    if (ra[1] !== rb[1]) return ra[1] - rb[1];
    return ra[2].localeCompare(rb[2], 'en', { numeric: true });
  }

  /** noteStage marks a stage done once an arrow of it arrived for the session's first pod. */
  function noteStage(m) {
    if (!(m.stage > 0)) return;
    if (S.firstPod === null && m.pod) S.firstPod = m.pod;
    if (m.pod && m.pod !== S.firstPod) return;
    if (!S.done.has(m.stage)) {
      S.done.add(m.stage);
      S.stageArrow[m.stage] = m.id;
      dirty.add('stages');
    }
  }

  function onHold(m) {
    S.held = Array.isArray(m.held) ? m.held : [];
    if (m.mode) S.mode = m.mode;
    dirty.add('status'); dirty.add('hold'); dirty.add('controls');
  }

  function onStep(m) {
    const prev = S.step;
    if (m.done && prev && prev.index === m.index) {
      // a finished step's message may leave out what its start said
      m = Object.assign({}, m, { narration: hasText(m.narration) ? m.narration : prev.narration, action: m.action || prev.action });
    }
    S.step = m;
    if (!m.done) {
      // a finished question stays until it is revealed or another is asked, so
      // the teacher can still reveal it while the next step plays
      const q = S.question;
      const keep = q && q.finished && q.revealed === null;
      if (m.question) S.question = newQuestion(m);
      else if (!keep) S.question = null;
    } else if (S.question && S.question.step === m.index) {
      S.question.finished = true;
      if (typeof m.answer === 'number' && m.answer >= 0) S.question.runAnswer = m.answer;
    }
    dirty.add('narration'); dirty.add('question');
  }

  function hasText(t) { return !!t && (typeof t === 'string' ? t !== '' : !!(t.en || t.zh)); }

  function newQuestion(m) {
    const stored = storeGet(choiceKey(m.index));
    return {
      step: m.index, ask: m.question.ask, choices: m.question.choices || [],
      finished: false, runAnswer: null, revealed: null, counts: null, answered: 0, viewers: 0,
      chosen: stored === null ? null : Number(stored), note: '', hidden: false,
    };
  }

  function onControl(m) { applySettings(m); dirty.add('all'); }

  function applySettings(m) {
    if (m.mode) S.mode = m.mode;
    if (typeof m.speed === 'number') S.speed = m.speed;
    if (m.lang) {
      if (m.lang !== S.classLang) dirty.add('evidence-lang');
      S.classLang = m.lang;
    }
  }

  function onReveal(m) {
    const q = S.question;
    if (!q || q.step !== m.step) return;
    q.revealed = m.answer;
    if (Array.isArray(m.counts)) q.counts = m.counts;
    dirty.add('question');
  }

  function onTally(m) {
    const q = S.question;
    if (!q || q.step !== m.step) return;
    Object.assign(q, { counts: m.counts || [], answered: m.answered || 0, viewers: m.viewers || 0 });
    dirty.add('question');
  }

  function onCluster(m) { S.cluster = m; dirty.add('cluster'); }

  function onEnd(m) {
    S.ended = { error: m.error || '' };
    S.held = [];
    dirty.add('status'); dirty.add('hold');
  }

  // ---- rendering ---------------------------------------------------------

  /** render redraws the parts of the page the flushed messages changed. */
  function render() {
    const all = dirty.has('all');
    if (all) renderStatic();
    if (all || dirty.has('status')) renderStatus();
    if (all || dirty.has('controls')) renderControls();
    if (all || dirty.has('narration')) renderNarration();
    if (all || dirty.has('stages')) renderStages();
    if (all || dirty.has('question')) renderQuestion();
    if (all || dirty.has('cluster')) renderCluster();
    if (all || dirty.has('rows') || dirty.has('hold') || S.layoutDirty) renderDiagram();
    if (dirty.has('evidence-lang') && S.selected !== null && !S.localLang) showEvidence(S.selected);
    dirty.clear();
  }

  /** renderStatic sets the texts that only change with the language or the role. */
  function renderStatic() {
    document.documentElement.lang = lang() === 'zh' ? 'zh-CN' : 'en';
    for (const n of document.querySelectorAll('[data-i18n]')) n.textContent = w(n.dataset.i18n);
    $('#replay').hidden = !S.replay;
    $('#replay').textContent = w('replay');
    $('#role').textContent = S.role;
    $('#role').dataset.role = S.role;
    $('#controls').hidden = S.role !== 'teacher';
    $('#my-lang').hidden = S.role === 'teacher';
    $('#my-lang').textContent = w('myLang');
    $('#my-lang').classList.toggle('on', S.localLang !== null);
    const title = S.scenario ? inLang(S.scenario.title) : '';
    $('#title').textContent = title || w('narrationTitle');
    document.title = title ? 'kubesim · ' + title : 'kubesim';
    renderLegend();
    if (S.selected === null) showEvidencePlaceholder();
    if (S.drawnLang !== lang()) { S.drawnLang = lang(); S.layoutDirty = true; } // lifeline names are words too
  }

  function renderStatus() {
    const st = $('#status');
    let state = S.conn, text;
    if (S.ended) {
      state = 'ended';
      text = S.ended.error ? w('endedErr') + ': ' + S.ended.error : w('ended');
      if (S.conn === 'offline') text += ' · ' + w('offline');
    } else {
      text = w(S.conn) || S.conn;
    }
    st.dataset.state = state;
    $('#conn').textContent = text;
    const held = S.held.length && !S.ended ? S.held.map(holdText).join(' · ') : '';
    $('#held-text').textContent = held ? ' ' + held : '';
    st.classList.toggle('held', !!held);
  }

  /** holdText is one held boundary as the marker and #status say it. */
  function holdText(hd) {
    if (hd.step) return WORDS[lang()].heldStep(hd.object || '');
    return WORDS[lang()].heldAfter(hd.after, hd.component || '?');
  }

  function renderControls() {
    if (S.role !== 'teacher') return;
    const mode = $('#mode');
    mode.textContent = w(S.mode) || S.mode;
    mode.dataset.mode = S.mode;
    mode.title = w('modeTitle');
    $('#speed').textContent = formatSpeed(S.speed);
    $('#speed').title = w('speed');
    $('#lang').textContent = S.classLang === 'zh' ? '中文' : 'EN';
    $('#lang').title = w('classLang');
    $('#restart').disabled = !S.canRestart;
    $('#next').disabled = !!S.ended;
    $('#next').classList.toggle('attention', S.held.length > 0);
  }

  function formatSpeed(s) {
    const txt = s >= 1 ? String(s) : (s === 0.25 ? '¼' : s === 0.5 ? '½' : String(s));
    return txt + '×';
  }

  function renderNarration() {
    const st = S.step;
    $('#step-index').textContent = st ? `${st.index}/${st.total}` : '–';
    const narr = $('#narration');
    narr.textContent = st ? inLang(st.narration) : (S.scenario ? inLang(S.scenario.summary) : w('noScenario'));
    const det = $('#step-detail');
    det.textContent = '';
    if (!st) return;
    if (st.action) det.appendChild(h('div', 'action', '$ ' + st.action));
    if (st.done && st.error) det.appendChild(h('div', 'step-error', w('error') + ': ' + st.error));
    else if (st.done && st.result) det.appendChild(h('div', 'step-result', '✓ ' + st.result));
  }

  function renderStages() {
    const ol = $('#stages');
    if (!ol.children.length) {
      for (let i = 1; i <= 8; i++) {
        const li = h('li');
        li.dataset.stage = String(i);
        li.appendChild(h('span', 'num', String(i)));
        li.appendChild(h('span', 'name'));
        li.addEventListener('click', () => { const id = S.stageArrow[i]; if (id) selectArrow(id, true); });
        ol.appendChild(li);
      }
    }
    const names = w('stage');
    let next = 0;
    for (let i = 1; i <= 8; i++) if (!S.done.has(i)) { next = i; break; }
    for (const li of ol.children) {
      const n = Number(li.dataset.stage);
      li.querySelector('.name').textContent = names[n - 1];
      li.classList.toggle('done', S.done.has(n));
      li.classList.toggle('next', S.done.size > 0 && n === next);
    }
    $('#stages-pod').textContent = S.firstPod ? '· ' + S.firstPod : '';
  }

  function renderCluster() {
    const c = S.cluster || { nodes: [], events: [] };
    const nodes = $('#nodes');
    nodes.textContent = '';
    for (const n of c.nodes || []) nodes.appendChild(nodeRow(n));
    if (!(c.nodes || []).length) nodes.appendChild(h('div', 'empty', w('noNodes')));
    const events = $('#events');
    events.textContent = '';
    for (const e of (c.events || []).slice(-200)) events.appendChild(eventRow(e));
    if (!(c.events || []).length) events.appendChild(h('div', 'empty', w('noEvents')));
    $('#cluster-count').textContent = (c.nodes || []).length ? `(${c.nodes.length})` : '';
  }

  function nodeRow(n) {
    const row = h('div', 'node');
    row.dataset.ready = n.ready;
    row.appendChild(h('span', 'dot'));
    row.appendChild(h('span', 'node-name', n.name));
    row.appendChild(h('span', 'node-ready', 'Ready=' + n.ready));
    row.appendChild(h('span', 'node-pods', `${n.pods} ${w('pods')}`));
    return row;
  }

  function eventRow(e) {
    const row = h('div', 'event');
    row.dataset.type = e.type;
    row.appendChild(h('span', 'ev-type', e.type));
    row.appendChild(h('span', 'ev-reason', e.reason));
    row.appendChild(h('span', 'ev-object', e.object));
    row.appendChild(h('span', 'ev-msg', e.message));
    return row;
  }

  function renderLegend() {
    const box = $('#legend');
    box.textContent = '';
    const lg = w('legend');
    const items = [['request', lg.request], ['response', lg.response], ['etcd', lg.etcd], ['watch', lg.watch],
      ['status', lg.status], ['runtime', lg.loop], ['terminated', lg.terminated]];
    for (const [kind, label] of items) {
      const item = h('span', 'legend-item k-' + kind);
      const svg = el('svg', { width: 30, height: 14, viewBox: '0 0 30 14', 'aria-hidden': 'true' });
      if (kind === 'runtime') svg.appendChild(el('path', { d: 'M4,2 h18 v10 h-16', class: 'stroke' }));
      else svg.appendChild(el('line', { x1: 1, y1: 7, x2: 29, y2: 7, class: 'stroke' }));
      item.appendChild(svg);
      item.appendChild(document.createTextNode(label));
      box.appendChild(item);
    }
    const st = h('span', 'legend-item');
    const svg = el('svg', { width: 20, height: 20, viewBox: '0 0 20 20', 'aria-hidden': 'true' });
    svg.appendChild(badge(10, 10, 'n'));
    st.appendChild(svg);
    st.appendChild(document.createTextNode(lg.stage));
    box.appendChild(st);
  }

  // ---- the question ------------------------------------------------------

  /** renderQuestion shows the step's question, the viewer's choice, the tally and the answer. */
  function renderQuestion() {
    const q = S.question;
    const box = $('#question');
    box.hidden = !q || q.hidden;
    $('#q-show').hidden = !q || !q.hidden;
    if (!q) return;
    $('#q-ask').textContent = inLang(q.ask);
    $('#q-step').textContent = S.step && S.step.index !== q.step ? `${q.step}/${S.step.total}` : '';
    const list = $('#q-choices');
    if (list.dataset.step !== String(q.step) || list.children.length !== q.choices.length) buildChoices(q);
    const right = q.revealed !== null ? q.revealed : null;
    const teacher = S.role === 'teacher';
    [...list.children].forEach((btn, i) => {
      btn.querySelector('.choice-text').textContent = inLang(q.choices[i]);
      btn.classList.toggle('chosen', q.chosen === i);
      btn.classList.toggle('right', right === i);
      btn.classList.toggle('wrong', right !== null && right !== i);
      btn.disabled = teacher || right !== null;
      const cnt = btn.querySelector('.count');
      const counts = q.counts || [];
      cnt.textContent = counts.length > i ? String(counts[i]) : '';
      const total = counts.reduce((a, b) => a + b, 0);
      btn.style.setProperty('--share', total ? (counts[i] || 0) / total : 0);
    });
    renderQuestionFoot(q, teacher, right);
  }

  function buildChoices(q) {
    const list = $('#q-choices');
    list.textContent = '';
    list.dataset.step = String(q.step);
    q.choices.forEach((_, i) => {
      const btn = h('button', 'choice');
      btn.type = 'button';
      btn.dataset.index = String(i);
      btn.appendChild(h('span', 'letter', String.fromCharCode(65 + i)));
      btn.appendChild(h('span', 'choice-text'));
      btn.appendChild(h('span', 'count'));
      btn.addEventListener('click', () => answer(i));
      list.appendChild(btn);
    });
  }

  function renderQuestionFoot(q, teacher, right) {
    const tally = $('#tally');
    tally.hidden = !teacher;
    // #tally holds one .count[data-index] per choice for the teacher (the test reads them).
    if (teacher) renderTally(q);
    const reveal = $('#reveal');
    reveal.hidden = !teacher || right !== null;
    // the server refuses a reveal before the step finished; the button stays
    // usable so a late 'done' never locks the teacher out
    reveal.classList.toggle('early', !q.finished);
    let note = q.note;
    if (right !== null) note = w('rightMarked');
    else if (!note) note = teacher ? (q.finished ? '' : w('waitReveal')) : (q.chosen !== null ? w('chosen') : w('chooseHint'));
    $('#q-note').textContent = note;
  }

  function renderTally(q) {
    const t = $('#tally');
    let counts = t.querySelector('.counts');
    if (!counts) { counts = h('span', 'counts'); t.insertBefore(counts, t.firstChild); }
    counts.textContent = '';
    q.choices.forEach((_, i) => {
      const c = h('span', 'count', String((q.counts || [])[i] || 0));
      c.dataset.index = String(i);
      c.dataset.letter = String.fromCharCode(65 + i);
      counts.appendChild(c);
    });
    $('#tally-text').textContent = WORDS[lang()].answered(q.answered || 0, q.viewers || 0);
  }

  function choiceKey(step) { return `kubesim.choice.${S.epoch}.${step}`; }

  let viewer = null;

  /** viewerID is this tab's random viewer id, kept in sessionStorage so a reload answers as the same viewer. */
  function viewerID() {
    if (viewer) return viewer;
    let id = storeGet('kubesim.viewer');
    if (!id) {
      const b = new Uint8Array(12);
      crypto.getRandomValues(b);
      id = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      storeSet('kubesim.viewer', id);
    }
    viewer = id;
    return id;
  }

  /** answer sends a viewer's choice; the server keeps the latest one per viewer. */
  async function answer(i) {
    const q = S.question;
    if (!q || S.role === 'teacher' || q.revealed !== null) return;
    const step = q.step;
    try {
      const r = await fetch('/api/answer', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ viewer: viewerID(), step: step, choice: i }),
      });
      if (!S.question || S.question.step !== step) return;
      if (r.status === 204 || r.ok) {
        S.question.chosen = i;
        S.question.note = '';
        storeSet(choiceKey(step), String(i));
      } else if (r.status === 409) {
        S.question.note = w('notAsked');
      } else {
        S.question.note = await errorText(r);
      }
    } catch (e) {
      S.question.note = String(e);
    }
    dirty.add('question');
    schedule();
  }

  // ---- the diagram -------------------------------------------------------

  let svg = null, gBand, gLines, gRows, gHold, gHead, gEmpty;

  /** ensureSVG creates the diagram's one <svg> and its layers (rows under the sticky header). */
  function ensureSVG() {
    if (svg) return;
    svg = el('svg', { class: 'seq', role: 'img' });
    svg.appendChild(markers());
    gBand = svg.appendChild(el('g', { class: 'bands' }));
    gLines = svg.appendChild(el('g', { class: 'lines' }));
    gEmpty = svg.appendChild(el('g', { class: 'empty' }));
    gRows = svg.appendChild(el('g', { class: 'rows' }));
    gHold = svg.appendChild(el('g', { class: 'hold' }));
    gHead = svg.appendChild(el('g', { class: 'head' }));
    $('#diagram').appendChild(svg);
    gRows.addEventListener('click', onRowClick);
  }

  /** markers are the arrowheads, one per kind (a marker takes no colour from its line). */
  function markers() {
    const defs = el('defs', {});
    for (const k of KINDS.concat(['hop'])) {
      const m = el('marker', { id: 'mk-' + k, class: 'mk k-' + k, viewBox: '0 0 10 10', refX: 9, refY: 5,
        markerWidth: 8, markerHeight: 8, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
      const open = k === 'response' || k === 'watch';
      m.setAttribute('markerWidth', k === 'hop' ? 7 : 11);
      m.setAttribute('markerHeight', k === 'hop' ? 7 : 11);
      m.appendChild(el('path', open ? { d: 'M1,1 L9,5 L1,9', class: 'open' } : { d: 'M0,0 L10,5 L0,10 z', class: 'fill' }));
      defs.appendChild(m);
    }
    return defs;
  }

  /** renderDiagram lays the diagram out again when its columns changed, else appends the new rows. */
  function renderDiagram() {
    ensureSVG();
    const width = Math.max(400, $('#diagram').clientWidth);
    if (S.layoutDirty || !S.geo || Math.abs(S.geo.viewW - width) > 1) {
      S.geo = computeGeometry(width);
      drawHeaders();
      gRows.textContent = '';
      S.rendered = 0;
      S.layoutDirty = false;
    }
    appendRows();
    drawHold();
    sizeSVG();
    if (S.following) scrollToEnd();
  }

  /** computeGeometry places the lifelines: the API server is wider, with lanes for the chain once seen. */
  function computeGeometry(viewW) {
    const weights = S.lifelines.map((n) => n === 'apiserver' ? (S.chain ? 2.8 : 1.4) : 1);
    const sum = weights.reduce((a, b) => a + b, 0);
    const W = Math.max(viewW, GEO.gutter + GEO.pad + sum * GEO.unitMin);
    const unit = (W - GEO.gutter - GEO.pad) / sum;
    const cols = {};
    let cum = 0;
    S.lifelines.forEach((n, i) => {
      const cw = weights[i] * unit;
      cols[n] = { x: GEO.gutter + cum + cw / 2, w: cw };
      cum += cw;
    });
    return { viewW, W, unit, cols, headH: S.chain ? GEO.chainHeadH : GEO.headH };
  }

  function laneX(server) {
    const c = S.geo.cols.apiserver;
    const off = LANE_OFFSET[server];
    return c.x + (off === undefined ? 0 : off) * c.w;
  }

  /** endX is where an arrow meets a lifeline: a request with hops enters the chain's first server. */
  function endX(name, a, isTo) {
    const c = S.geo.cols[name];
    if (!c) return GEO.gutter;
    if (name === 'apiserver' && S.chain && isTo && a.hops && a.hops.length) return laneX(a.hops[0].server);
    return c.x;
  }

  function lifelineWords(name) {
    const ll = w('lifeline');
    if (ll[name]) return [ll[name]];
    if (name.startsWith('kubelet/')) return ['kubelet', name.slice(8)];
    const cut = name.lastIndexOf('-');
    if (name.length > 10 && cut > 0) return [name.slice(0, cut + 1), name.slice(cut + 1)];
    return [name];
  }

  /** drawHeaders draws each lifeline's header (g.lifeline[data-name]) and its vertical line. */
  function drawHeaders() {
    const g = S.geo;
    gHead.textContent = ''; gLines.textContent = ''; gBand.textContent = '';
    gHead.appendChild(el('rect', { class: 'head-bg', x: 0, y: 0, width: g.W, height: g.headH }));
    gHead.appendChild(el('line', { class: 'head-rule', x1: 0, x2: g.W, y1: g.headH - 0.5, y2: g.headH - 0.5 }));
    for (const name of S.lifelines) {
      const c = g.cols[name];
      const grp = el('g', { class: 'lifeline', 'data-name': name });
      const bw = Math.min(c.w - 10, name === 'apiserver' ? c.w - 10 : 150);
      grp.appendChild(el('rect', { class: 'box', x: c.x - bw / 2, y: 6, width: bw, height: 44, rx: 8 }));
      const words = lifelineWords(name);
      if (words.length === 1) grp.appendChild(fitText({ x: c.x, y: 34, class: 'name' }, words[0], 17, bw - 10));
      else {
        grp.appendChild(fitText({ x: c.x, y: 25, class: 'name' }, words[0], 17, bw - 10));
        grp.appendChild(fitText({ x: c.x, y: 44, class: 'sub' }, words[1], 15, bw - 10));
      }
      grp.appendChild(el('title', {}, name));
      gHead.appendChild(grp);
      if (name === 'apiserver' && S.chain) drawChainLanes(grp, c);
      else gLines.appendChild(el('line', { class: 'life', x1: c.x, x2: c.x, y1: g.headH, y2: g.headH + 10 }));
    }
  }

  /** fitText is a text element squeezed to max px when its estimated width is wider. */
  function fitText(attrs, text, px, max) {
    const t = el('text', attrs, text);
    if (textWidth(text, px * 1.08) > max) {
      t.setAttribute('textLength', Math.max(10, max));
      t.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
    return t;
  }

  /** drawChainLanes draws the API server's band and one lane per server of its chain. */
  function drawChainLanes(grp, c) {
    const g = S.geo;
    gBand.appendChild(el('rect', { class: 'band', x: c.x - c.w / 2 + 4, y: 0, width: c.w - 8, height: g.headH + 10 }));
    const lanes = w('lanes');
    ['aggregator', 'kube-apiserver', 'apiextensions'].forEach((s, i) => {
      const x = laneX(s);
      const y = i === 1 ? 84 : 66;
      grp.appendChild(el('text', { x: x, y: y, class: 'lane-name' }, lanes[s]));
      gLines.appendChild(el('line', { class: 'life lane', x1: x, x2: x, y1: g.headH, y2: g.headH + 10 }));
    });
  }

  function rowY(i) { return S.geo.headH + 6 + i * GEO.rowH; }

  /** appendRows draws the arrows not drawn yet, in one fragment. */
  function appendRows() {
    const n = S.arrows.length;
    if (S.rendered >= n) { gEmpty.textContent = ''; if (!n) drawEmpty(); return; }
    gEmpty.textContent = '';
    const frag = document.createDocumentFragment();
    for (let i = S.rendered; i < n; i++) frag.appendChild(drawRow(S.arrows[i], i));
    gRows.appendChild(frag);
    S.rendered = n;
    if (S.selected !== null) markSelected();
  }

  function drawEmpty() {
    const g = S.geo;
    gEmpty.appendChild(el('text', { class: 'empty-text', x: g.W / 2, y: g.headH + 60 }, w('waiting')));
  }

  /** drawRow draws one arrow as g.arrow[data-id][data-stage][data-kind], at row i. */
  function drawRow(a, i) {
    const g = S.geo;
    const grp = el('g', { class: 'arrow k-' + a.kind, 'data-id': a.id, 'data-stage': a.stage || 0,
      'data-kind': a.kind, transform: `translate(0,${rowY(i)})` });
    grp.appendChild(el('rect', { class: 'hit', x: 0, y: 0, width: g.W, height: GEO.rowH }));
    grp.appendChild(el('text', { class: 'time', x: 6, y: GEO.lineY + 5 }, formatAt(a.at)));
    if (a.from === a.to || SELF_KINDS.has(a.kind) && a.from === a.to) drawSelf(grp, a);
    else drawLine(grp, a);
    if (a.hops && a.hops.length && a.to === 'apiserver' && S.chain) drawHops(grp, a.hops);
    const tip = `#${a.id} ${a.label}\n${a.from} → ${a.to}` + (a.pod ? ` · ${a.pod}` : '') +
      (a.stage > 0 ? ` · stage ${a.stage}` : '') + (a.hops && a.hops.length ? '\n' + hopsText(a.hops) : '');
    grp.appendChild(el('title', {}, tip));
    return grp;
  }

  function drawLine(grp, a) {
    const g = S.geo, y = GEO.lineY;
    const x1 = endX(a.from, a, false), x2 = endX(a.to, a, true);
    const dir = x2 >= x1 ? 1 : -1;
    grp.appendChild(el('line', { class: 'stroke', x1: x1, y1: y, x2: x2 - dir * 2, y2: y, 'marker-end': `url(#mk-${markerKind(a.kind)})` }));
    const label = clip(a.label || a.kind);
    const lw = textWidth(label, 17);
    const left = clamp((x1 + x2) / 2 - lw / 2, GEO.gutter, g.W - 6 - lw);
    grp.appendChild(el('text', { class: 'label', x: left, y: y - 9 }, label));
    if (a.stage > 0) grp.appendChild(badge(x1 + dir * 13, y, a.stage));
    if (a.kind === 'terminated') grp.appendChild(el('text', { class: 'cross', x: x2 - dir * 24, y: y + 6 }, '✕'));
  }

  /** drawSelf draws a component's own work (schedule, runtime, controller) as a loop on its lifeline. */
  function drawSelf(grp, a) {
    const g = S.geo, x = endX(a.from, a, false);
    const label = clip(a.label || a.kind);
    const lw = textWidth(label, 17);
    const right = x + 48 + lw <= g.W - 4 || x - 48 - lw < GEO.gutter;
    const d = right ? `M${x},14 h30 v${GEO.lineY - 12} h-27` : `M${x},14 h-30 v${GEO.lineY - 12} h27`;
    grp.appendChild(el('path', { class: 'stroke', d: d, fill: 'none', 'marker-end': `url(#mk-${markerKind(a.kind)})` }));
    const tx = right ? x + 40 : Math.max(GEO.gutter, x - 40 - lw);
    grp.appendChild(el('text', { class: 'label', x: tx, y: 29 }, label));
    if (a.stage > 0) grp.appendChild(badge(right ? x - 13 : x + 13, 24, a.stage));
  }

  /** drawHops draws the chain's servers a request went through, below its arrow: ○ delegated, ● served, ✕ not found. */
  function drawHops(grp, hops) {
    const y = GEO.lineY + 11;
    const oc = w('outcome');
    for (let i = 0; i < hops.length; i++) {
      const x = laneX(hops[i].server);
      if (i + 1 < hops.length) {
        const nx = laneX(hops[i + 1].server);
        const dir = nx >= x ? 1 : -1;
        grp.appendChild(el('line', { class: 'hop-line', x1: x + dir * 6, y1: y, x2: nx - dir * 8, y2: y, 'marker-end': 'url(#mk-hop)' }));
      }
      const cls = 'hop o-' + String(hops[i].outcome || '').replace(/\s+/g, '-');
      grp.appendChild(el('circle', { class: cls, cx: x, cy: y, r: 5 }));
      if (i === hops.length - 1 && hops[i].outcome) {
        grp.appendChild(el('text', { class: 'hop-text ' + cls.slice(4), x: x + 9, y: y + 5 }, oc[hops[i].outcome] || hops[i].outcome));
      }
    }
  }

  function hopsText(hops) { return hops.map((x) => `${x.server} ${x.outcome}`).join(' → '); }
  function markerKind(k) { return KINDS.includes(k) ? k : 'request'; }

  function badge(x, y, stage) {
    const b = el('g', { class: 'badge' });
    b.appendChild(el('circle', { cx: x, cy: y, r: 10 }));
    b.appendChild(el('text', { x: x, y: y + 4.5 }, String(stage)));
    return b;
  }

  /** drawHold draws the held gate as a marker line below the last row. */
  function drawHold() {
    gHold.textContent = '';
    if (!S.held.length || S.ended) return;
    const g = S.geo, y = rowY(S.arrows.length) + 8;
    S.held.forEach((hd, i) => {
      const yy = y + i * 34;
      gHold.appendChild(el('line', { class: 'hold-line', x1: GEO.gutter - 60, x2: g.W - 4, y1: yy, y2: yy }));
      const txt = holdText(hd) + (hd.object && !hd.step ? ' · ' + hd.object : '');
      const x = GEO.gutter, tw = textWidth(txt, 17.5) + 44;
      gHold.appendChild(el('rect', { class: 'hold-pill', x: x, y: yy - 15, width: tw, height: 30, rx: 15 }));
      gHold.appendChild(el('rect', { class: 'hold-icon', x: x + 13, y: yy - 7, width: 4.5, height: 14 }));
      gHold.appendChild(el('rect', { class: 'hold-icon', x: x + 21, y: yy - 7, width: 4.5, height: 14 }));
      gHold.appendChild(el('text', { class: 'hold-text', x: x + 34, y: yy + 6 }, txt));
    });
  }

  /** sizeSVG makes the svg as tall as its rows and the hold marker, and the lifelines as long. */
  function sizeSVG() {
    const g = S.geo;
    const rowsEnd = rowY(Math.max(S.arrows.length, 2)) + (S.held.length ? S.held.length * 34 + 20 : 16);
    const H = Math.max(rowsEnd, $('#diagram').clientHeight - 4);
    svg.setAttribute('width', g.W);
    svg.setAttribute('height', H);
    svg.setAttribute('viewBox', `0 0 ${g.W} ${H}`);
    for (const ln of gLines.children) ln.setAttribute('y2', H);
    const band = gBand.firstChild;
    if (band) band.setAttribute('height', H);
    gHead.querySelector('.head-bg').setAttribute('width', g.W);
    gHead.querySelector('.head-rule').setAttribute('x2', g.W);
    stickHeader();
  }

  /** stickHeader keeps the lifeline headers at the top of the scrolled diagram. */
  function stickHeader() {
    if (gHead) gHead.setAttribute('transform', `translate(0,${$('#diagram').scrollTop})`);
  }

  function scrollToEnd() {
    const d = $('#diagram');
    d.scrollTop = d.scrollHeight;
    stickHeader();
  }

  function onScroll() {
    const d = $('#diagram');
    stickHeader();
    const atEnd = d.scrollTop + d.clientHeight >= d.scrollHeight - 24;
    if (S.following !== atEnd) {
      S.following = atEnd;
      $('#follow').hidden = atEnd;
    }
  }

  function follow() {
    S.following = true;
    $('#follow').hidden = true;
    scrollToEnd();
  }

  // ---- evidence ----------------------------------------------------------

  function onRowClick(ev) {
    const g = ev.target.closest('g.arrow');
    if (g) selectArrow(Number(g.dataset.id), false);
  }

  /** selectArrow marks an arrow and shows its evidence; reveal scrolls the diagram to it. */
  function selectArrow(id, reveal) {
    S.selected = id;
    markSelected();
    showEvidence(id);
    if (!reveal) return;
    const row = gRows.querySelector(`g.arrow[data-id="${id}"]`);
    const idx = S.arrows.indexOf(S.byId.get(id));
    if (row && idx >= 0) {
      const d = $('#diagram');
      d.scrollTop = Math.max(0, rowY(idx) - d.clientHeight / 2);
    }
  }

  function markSelected() {
    for (const n of gRows.querySelectorAll('g.arrow.selected')) n.classList.remove('selected');
    const row = gRows.querySelector(`g.arrow[data-id="${S.selected}"]`);
    if (row) row.classList.add('selected');
  }

  /** showEvidence fetches one arrow's evidence in the page's language and draws its lines. */
  async function showEvidence(id) {
    const token = ++evidenceToken;
    switchTab('evidence');
    const a = S.byId.get(id);
    $('#evidence-title').textContent = a ? a.label : '#' + id;
    setEvidenceLines([{ role: 'note', text: w('loading') }]);
    let body;
    try {
      const r = await fetch(`/api/evidence/${encodeURIComponent(id)}?lang=${lang()}`);
      if (token !== evidenceToken) return;
      if (!r.ok) throw new Error(r.status === 404 ? w('noEvidence') : await errorText(r));
      body = await r.json();
    } catch (e) {
      if (token !== evidenceToken) return;
      setEvidenceLines([{ role: 'failed', text: w('evidenceErr') + ': ' + e.message }]);
      return;
    }
    if (token !== evidenceToken) return;
    $('#evidence-title').textContent = body.title || (a ? a.label : '');
    const lines = Array.isArray(body.lines) && body.lines.length ? body.lines : [{ role: 'note', text: w('noEvidence') }];
    setEvidenceLines(lines);
  }

  function setEvidenceLines(lines) {
    const box = $('#evidence-lines');
    box.textContent = '';
    box.scrollTop = 0; box.scrollLeft = 0;
    const frag = document.createDocumentFragment();
    for (const ln of lines) {
      const d = h('div', 'line role-' + String(ln.role || 'plain').replace(/[^a-z-]/g, ''), ln.text === '' ? ' ' : ln.text);
      frag.appendChild(d);
    }
    box.appendChild(frag);
  }

  function showEvidencePlaceholder() {
    $('#evidence-title').textContent = '';
    const box = $('#evidence-lines');
    box.textContent = '';
    box.appendChild(h('div', 'hint', w('pickArrow')));
  }

  function switchTab(name) {
    for (const t of document.querySelectorAll('#tabs .tab')) t.classList.toggle('active', t.dataset.tab === name);
    $('#evidence').hidden = name !== 'evidence';
    $('#cluster').hidden = name !== 'cluster';
  }

  // ---- teacher's controls ------------------------------------------------

  /** control posts one action to /api/control with the key. */
  async function control(body) {
    if (S.role !== 'teacher') return;
    try {
      const r = await fetch('/api/control', {
        method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Kubesim-Key': KEY },
        body: JSON.stringify(body),
      });
      if (!r.ok && r.status !== 204) toast(await errorText(r));
    } catch (e) {
      toast(String(e));
    }
  }

  async function errorText(r) {
    try { const b = await r.json(); if (b && b.error) return `${r.status}: ${b.error}`; } catch (e) { /* not JSON */ }
    return `${r.status} ${r.statusText}`;
  }

  let toastTimer = 0;
  function toast(msg) {
    const t = $('#toast');
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
  }

  function nextSpeed(cur, faster) {
    if (faster) return SPEEDS.find((s) => s > cur) || SPEEDS[SPEEDS.length - 1];
    if (cur === 0) return SPEEDS[SPEEDS.length - 1];
    for (let i = SPEEDS.length - 1; i >= 0; i--) if (SPEEDS[i] < cur) return SPEEDS[i];
    return SPEEDS[0];
  }

  const ACTIONS = {
    // what the page shows held, so that a press lets go only that (a boundary held since is shown first)
    next: () => control(S.held.length ? { action: 'next', held: S.held } : { action: 'next' }),
    mode: () => control({ action: 'mode', mode: S.mode === 'auto' ? 'step' : 'auto' }),
    slower: () => setSpeed(nextSpeed(S.speed, false)),
    faster: () => setSpeed(nextSpeed(S.speed, true)),
    lang: () => control({ action: 'lang', lang: S.classLang === 'zh' ? 'en' : 'zh' }),
    restart: () => control({ action: 'restart' }),
    reveal: () => { if (S.question) control({ action: 'reveal', step: S.question.step }); },
  };

  function setSpeed(s) {
    S.speed = s;
    dirty.add('controls'); schedule();
    control({ action: 'speed', speed: s });
  }

  const KEYS = { ArrowRight: 'next', ' ': 'next', s: 'mode', S: 'mode', '+': 'faster', '=': 'faster', '-': 'slower', _: 'slower', l: 'lang', L: 'lang' };

  function onKey(ev) {
    if (S.role !== 'teacher' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target && ev.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    const act = KEYS[ev.key];
    if (!act) return;
    ev.preventDefault();
    ACTIONS[act]();
  }

  // ---- wiring ------------------------------------------------------------

  function wire() {
    for (const id of ['next', 'mode', 'slower', 'faster', 'lang', 'restart', 'reveal']) {
      $('#' + id).addEventListener('click', (ev) => { ev.currentTarget.blur(); ACTIONS[id](); });
    }
    document.addEventListener('keydown', onKey);
    $('#diagram').addEventListener('scroll', onScroll, { passive: true });
    $('#follow').addEventListener('click', follow);
    $('#my-lang').addEventListener('click', () => {
      const other = lang() === 'zh' ? 'en' : 'zh';
      S.localLang = other === S.classLang ? null : other;
      dirty.add('all'); schedule();
      if (S.selected !== null) showEvidence(S.selected);
    });
    $('#q-hide').addEventListener('click', () => { if (S.question) { S.question.hidden = true; dirty.add('question'); schedule(); } });
    $('#q-show').addEventListener('click', () => { if (S.question) { S.question.hidden = false; dirty.add('question'); schedule(); } });
    for (const t of document.querySelectorAll('#tabs .tab')) t.addEventListener('click', () => switchTab(t.dataset.tab));
    $('#widen').addEventListener('click', () => {
      document.body.classList.toggle('wide-right');
      S.layoutDirty = true; dirty.add('rows'); schedule();
    });
    window.addEventListener('resize', () => { dirty.add('rows'); schedule(); });
  }

  // ---- small helpers -----------------------------------------------------

  function formatAt(ms) {
    if (typeof ms !== 'number') return '';
    const s = ms / 1000;
    if (s < 60) return '+' + s.toFixed(s < 10 ? 2 : 1) + 's';
    const m = Math.floor(s / 60);
    return `+${m}:${(s - m * 60).toFixed(0).padStart(2, '0')}`;
  }

  /** textWidth estimates a label's width in px: CJK and fullwidth glyphs are one em, others about half. */
  function textWidth(s, px) {
    let n = 0;
    for (const ch of s) n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 1 : 0.56;
    return n * px;
  }

  /** storeGet and storeSet use sessionStorage where the browser allows it (a private window may not). */
  function storeGet(k) { try { return sessionStorage.getItem(k); } catch (e) { return null; } }
  function storeSet(k, v) { try { sessionStorage.setItem(k, v); } catch (e) { /* kept for this page only */ } }

  function clip(s) { return s.length > 90 ? s.slice(0, 89) + '…' : s; }
  function clamp(v, lo, hi) { return Math.max(lo, Math.min(v, hi)); }

  wire();
  dirty.add('all');
  render();
  connect();
})();
