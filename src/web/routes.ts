/** Which handler answers which path, for a signed-in person. */
import { h } from 'preact';
import { MessagePage } from './pages/message.js';
import type { PostedForm } from './request.js';
import { frame, redirect, sendPage, type Request } from './respond.js';
import { cancelPost, doctorPage, eventPost, queuePage, runPageFor } from './operators.js';
import { processMap, processMapPage, processPage, processesPage, startPost } from './processes.js';
import { insightsMap, insightsPage, insightsRuns } from './insights.js';
import { fileDownload, mapImage, runMapPage, runsList } from './runs.js';
import { decidePost, inbox, workItemPage } from './work.js';
import { delegatePost, delegationPage, endDelegationPost } from './delegation.js';

const RUN = '(r-[0-9a-z]{26})';
const ITEM = '(w-[0-9a-z]{1,60})';
const FILE = '(f-[0-9a-f]{32})';
const PROCESS = '([a-z0-9]+(?:-[a-z0-9]+)*)';

type Get = (r: Request, ...m: string[]) => Promise<void>;
type Post = (r: Request, form: PostedForm, ...m: string[]) => Promise<void>;

const GET: [RegExp, Get][] = [
  [/^\/$/, async (r) => redirect(r.res, '/work')],
  [/^\/work$/, inbox],
  [new RegExp(`^/work/${RUN}/${ITEM}$`), workItemPage],
  [/^\/runs$/, runsList],
  [new RegExp(`^/runs/${RUN}$`), (r, id) => runPageFor(r, id)],
  [new RegExp(`^/runs/${RUN}/files/${FILE}$`), fileDownload],
  [new RegExp(`^/runs/${RUN}/map.svg$`), mapImage],
  [new RegExp(`^/runs/${RUN}/map$`), runMapPage],
  [/^\/processes$/, processesPage],
  [new RegExp(`^/processes/${PROCESS}$`), (r, name) => processPage(r, name)],
  [new RegExp(`^/processes/${PROCESS}/v([0-9]{1,9})/map.svg$`), (r, name, v) => processMap(r, name, v)],
  [new RegExp(`^/processes/${PROCESS}/v([0-9]{1,9})/map$`), (r, name, v) => processMapPage(r, name, v)],
  [/^\/insights$/, insightsPage],
  [/^\/insights\/runs$/, insightsRuns],
  [/^\/insights\/map\.svg$/, insightsMap],
  [/^\/operators$/, queuePage],
  [/^\/operators\/doctor$/, doctorPage],
  [/^\/out-of-office$/, delegationPage],
];

const POST: [RegExp, Post][] = [
  [new RegExp(`^/work/${RUN}/${ITEM}$`), (r, form, run, item) => decidePost(r, run, item, form)],
  [new RegExp(`^/runs/${RUN}/cancel$`), (r, form, run) => cancelPost(r, run, form)],
  [new RegExp(`^/runs/${RUN}/event$`), (r, form, run) => eventPost(r, run, form)],
  [new RegExp(`^/processes/${PROCESS}/start$`), (r, form, name) => startPost(r, name, form)],
  [/^\/out-of-office$/, (r, form) => delegatePost(r, form)],
  [/^\/out-of-office\/end$/, (r, form) => endDelegationPost(r, form)],
];

function notFound(r: Request): void {
  sendPage(r.res, 404, h(MessagePage, { frame: frame(r, 'Not found'), title: 'Not found' }, h('p', null, 'There is no page here.')));
}

export const routes = {
  async get(r: Request): Promise<void> {
    for (const [re, fn] of GET) {
      const m = re.exec(r.url.pathname);
      if (m) return fn(r, ...m.slice(1));
    }
    notFound(r);
  },
  async post(r: Request, form: PostedForm): Promise<void> {
    for (const [re, fn] of POST) {
      const m = re.exec(r.url.pathname);
      if (m) return fn(r, form, ...m.slice(1));
    }
    notFound(r);
  },
};
