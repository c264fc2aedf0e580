import{A as e,D as t,E as n,F as r,I as i,O as a,T as o,a as s,c,f as l,g as u,h as d,i as f,k as p,l as m,m as h,o as g,p as _,s as v,t as y,u as b,y as x}from"./index-y5URSzwJ.js";import{i as S,n as C,o as w}from"./format-i6idsRVQ.js";import{n as T,r as E,t as D}from"./StepUp-BCOhQuIQ.js";var O=i(r(),1),k=x(`
  query ApiKeys {
    apiKeys(first: 100) {
      edges { node { id name type prefix mode status createdAt lastUsed } }
    }
  }
`),A=x(`
  mutation ApiKeyCreate($input: ApiKeyCreateInput!) {
    apiKeyCreate(input: $input) {
      key
      apiKey { id name type prefix mode status createdAt lastUsed }
      userErrors { code message field }
    }
  }
`),j=x(`
  mutation ApiKeyRevoke($input: ApiKeyRevokeInput!) {
    apiKeyRevoke(input: $input) {
      apiKey { id status }
      userErrors { code message field }
    }
  }
`),M=x(`
  query WebhookEndpoints {
    webhookEndpoints(first: 100) {
      edges { node { id url status events livemode createdAt } }
    }
  }
`),N=x(`
  query WebhookEvents($first: Int, $after: String) {
    webhookEvents(first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id event status delivered attempts objectId createdAt
          deliveries { id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError }
        }
      }
    }
  }
`),P=x(`
  query WebhookEventAttempts($id: ID!) {
    node(id: $id) {
      ... on WebhookEvent {
        id
        deliveries {
          id endpointId state
          attemptLog { number createdAt statusCode latencyMs error manual }
        }
      }
    }
  }
`),F=x(`
  mutation WebhookEventRetry($input: WebhookEventRetryInput!) {
    webhookEventRetry(input: $input) {
      webhookEvent {
        id event status delivered attempts objectId createdAt
        deliveries {
          id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError
          attemptLog { number createdAt statusCode latencyMs error manual }
        }
      }
      userErrors { code message field }
    }
  }
`),I=t();function L({onCreated:e}){let[t,n]=(0,O.useState)(!1),[r,i]=(0,O.useState)(``),[a,c]=(0,O.useState)(null),[l,u]=(0,O.useState)(!1),[d,m]=p(A),[h,v]=(0,O.useState)(!1);function y(){i(``),c(null),u(!1),n(!0)}function x(){c(null),n(!1)}async function S(t){t?.preventDefault();let n=await m({input:{name:r.trim()||null}}),i=n.data?.apiKeyCreate;E(n.error,i?.userErrors)?v(!0):i?.key&&!i.userErrors.length&&(c(i.key),e())}async function C(){if(a)try{await navigator.clipboard.writeText(a),u(!0)}catch{u(!1)}}return(0,I.jsxs)(I.Fragment,{children:[(0,I.jsx)(`button`,{type:`button`,className:b,onClick:y,children:(0,I.jsx)(o,{id:`developers.createKey`})}),(0,I.jsx)(T,{open:h,onClose:()=>v(!1),onConfirmed:()=>{v(!1),S()}}),(0,I.jsx)(f,{open:t&&!h,onClose:x,titleId:a?`developers.secretTitle`:`developers.createKey`,children:a?(0,I.jsxs)(`div`,{children:[(0,I.jsx)(`p`,{className:`mb-2`,children:(0,I.jsx)(o,{id:`developers.secretOnce`})}),(0,I.jsx)(`p`,{className:`mb-3 break-all rounded bg-slate-100 p-3`,children:(0,I.jsx)(`bdi`,{dir:`ltr`,className:`font-mono text-sm`,"data-testid":`api-key-secret`,children:a})}),l&&(0,I.jsx)(`p`,{role:`status`,className:`mb-2 text-emerald-900`,children:(0,I.jsx)(o,{id:`developers.copied`})}),(0,I.jsxs)(`div`,{className:`flex justify-end gap-2`,children:[(0,I.jsx)(`button`,{type:`button`,className:_,onClick:C,children:(0,I.jsx)(o,{id:`developers.copy`})}),(0,I.jsx)(`button`,{type:`button`,className:b,onClick:x,children:(0,I.jsx)(o,{id:`developers.done`})})]})]}):(0,I.jsxs)(`form`,{onSubmit:S,children:[(0,I.jsx)(g,{labelId:`developers.name`,name:`name`,autoComplete:`off`,value:r,onChange:e=>i(e.target.value)}),(0,I.jsx)(s,{error:E(d.error)?void 0:d.error,userErrors:d.data?.apiKeyCreate.userErrors.filter(e=>e.code!==D)}),(0,I.jsxs)(`div`,{className:`flex justify-end gap-2`,children:[(0,I.jsx)(`button`,{type:`button`,className:_,onClick:x,children:(0,I.jsx)(o,{id:`shell.cancel`})}),(0,I.jsx)(`button`,{type:`submit`,className:b,disabled:d.fetching,children:(0,I.jsx)(o,{id:`developers.create`})})]})]})})]})}function R({write:t}){let r=n(),[{data:i,error:a,fetching:c},l]=e({query:k}),[f,g]=p(j),_=i?.apiKeys.edges.map(e=>e.node)??[];return(0,I.jsxs)(`section`,{"aria-labelledby":`keys-heading`,className:`mb-8`,children:[(0,I.jsxs)(`div`,{className:`mb-2 flex flex-wrap items-center justify-between gap-2`,children:[(0,I.jsx)(`h2`,{id:`keys-heading`,className:`text-xl font-semibold`,children:(0,I.jsx)(o,{id:`developers.keys`})}),t&&(0,I.jsx)(L,{onCreated:()=>l({requestPolicy:`network-only`})})]}),(0,I.jsx)(s,{error:a}),(0,I.jsx)(s,{error:f.error,userErrors:f.data?.apiKeyRevoke.userErrors}),c&&!i?(0,I.jsx)(v,{}):(0,I.jsx)(`div`,{className:`overflow-x-auto rounded border border-slate-200 bg-white`,children:(0,I.jsxs)(`table`,{className:h,children:[(0,I.jsx)(`thead`,{children:(0,I.jsxs)(`tr`,{children:[[`name`,`prefix`,`type`,`mode`,`status`,`created`,`lastUsed`].map(e=>(0,I.jsx)(`th`,{scope:`col`,className:u,children:(0,I.jsx)(o,{id:`developers.col.${e}`})},e)),t&&(0,I.jsx)(`th`,{scope:`col`,className:`border-b border-slate-300 px-3 py-2 text-start font-semibold text-slate-700`,children:(0,I.jsx)(`span`,{className:`sr-only`,children:(0,I.jsx)(o,{id:`developers.col.actions`})})})]})}),(0,I.jsx)(`tbody`,{children:_.map(e=>(0,I.jsxs)(`tr`,{"data-key-id":e.id,children:[(0,I.jsx)(`td`,{className:d,children:(0,I.jsx)(`bdi`,{children:e.name})}),(0,I.jsx)(`td`,{className:d,children:(0,I.jsx)(S,{children:e.prefix})}),(0,I.jsx)(`td`,{className:d,children:r.formatMessage({id:`developers.type.${e.type}`,defaultMessage:e.type})}),(0,I.jsx)(`td`,{className:d,children:r.formatMessage({id:`developers.mode.${e.mode}`,defaultMessage:e.mode})}),(0,I.jsx)(`td`,{className:d,children:(0,I.jsx)(m,{value:e.status})}),(0,I.jsx)(`td`,{className:`${d} min-w-40`,children:(0,I.jsx)(C,{iso:e.createdAt})}),(0,I.jsx)(`td`,{className:`${d} min-w-40`,children:e.lastUsed?(0,I.jsx)(C,{iso:e.lastUsed}):r.formatMessage({id:`developers.never`})}),t&&(0,I.jsx)(`td`,{className:`border-b border-slate-200 px-3 py-2 text-start align-top`,children:e.status===`active`&&(0,I.jsx)(`button`,{type:`button`,className:`inline-flex items-center gap-2 rounded border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-50`,disabled:f.fetching,"aria-label":r.formatMessage({id:`developers.revokeKey`},{name:e.name}),onClick:()=>{window.confirm(r.formatMessage({id:`developers.revokeConfirm`},{name:e.name}))&&g({input:{id:e.id}})},children:(0,I.jsx)(o,{id:`developers.revoke`})})})]},e.id))})]})})]})}function z(){let t=n(),[{data:r,error:i}]=e({query:M}),a=r?.webhookEndpoints.edges.map(e=>e.node)??[];return(0,I.jsxs)(`section`,{"aria-labelledby":`endpoints-heading`,className:`mb-8`,children:[(0,I.jsx)(`h2`,{id:`endpoints-heading`,className:`mb-2 text-xl font-semibold`,children:(0,I.jsx)(o,{id:`developers.endpoints`})}),(0,I.jsx)(s,{error:i}),a.length?(0,I.jsx)(`ul`,{className:`space-y-2`,children:a.map(e=>(0,I.jsxs)(`li`,{"data-endpoint-id":e.id,className:`rounded border border-slate-200 bg-white p-3`,children:[(0,I.jsxs)(`div`,{className:`flex flex-wrap items-center gap-2`,children:[(0,I.jsx)(`bdi`,{dir:`ltr`,className:`font-mono text-sm`,children:e.url}),` `,(0,I.jsx)(m,{value:e.status})]}),(0,I.jsx)(`div`,{className:`mt-1 text-sm text-slate-600`,children:(0,I.jsx)(`bdi`,{dir:`ltr`,children:e.events.join(`, `)})})]},e.id))}):r&&(0,I.jsx)(`p`,{className:`rounded border border-slate-200 bg-white p-4`,children:t.formatMessage({id:`developers.noEndpoints`})})]})}function B({deliveries:e}){let t=n();return(0,I.jsx)(`div`,{className:`mt-2 space-y-2`,children:e.map(e=>(0,I.jsxs)(`table`,{className:`${h} text-sm`,"data-delivery-id":e.id,children:[(0,I.jsxs)(`caption`,{className:`text-start text-slate-600`,children:[(0,I.jsx)(S,{children:e.endpointId}),` · `,(0,I.jsx)(m,{value:e.state})]}),(0,I.jsx)(`thead`,{children:(0,I.jsx)(`tr`,{children:[`number`,`time`,`statusCode`,`latency`,`error`].map(e=>(0,I.jsx)(`th`,{scope:`col`,className:u,children:(0,I.jsx)(o,{id:`developers.attempt.${e}`})},e))})}),(0,I.jsx)(`tbody`,{children:(e.attemptLog??[]).map(e=>(0,I.jsxs)(`tr`,{"data-attempt":e.number,children:[(0,I.jsxs)(`td`,{className:d,children:[(0,I.jsx)(w,{value:e.number}),e.manual&&(0,I.jsxs)(`span`,{className:`ms-1 text-slate-600`,children:[`(`,t.formatMessage({id:`developers.manual`}),`)`]})]}),(0,I.jsx)(`td`,{className:`${d} min-w-40`,children:(0,I.jsx)(C,{iso:e.createdAt})}),(0,I.jsx)(`td`,{className:d,children:e.statusCode==null?`—`:(0,I.jsx)(w,{value:e.statusCode})}),(0,I.jsx)(`td`,{className:d,children:(0,I.jsx)(o,{id:`developers.ms`,values:{ms:(0,I.jsx)(w,{value:e.latencyMs})}})}),(0,I.jsx)(`td`,{className:d,children:e.error?(0,I.jsx)(`bdi`,{children:e.error}):null})]},e.number))})]},e.id))})}function V({write:t}){let r=n(),i=a(),[c,l]=(0,O.useState)(null),[{data:u,error:d,fetching:f}]=e({query:N,variables:{first:25,after:c}}),[h,g]=p(F),[y,b]=(0,O.useState)({}),x=u?.webhookEvents.edges.map(e=>e.node)??[];async function T(e){if(y[e]){b(({[e]:t,...n})=>n);return}let t=(await i.query(P,{id:e},{requestPolicy:`network-only`}).toPromise()).data?.node;t&&`deliveries`in t&&b(n=>({...n,[e]:t.deliveries??[]}))}async function E(e){let t=(await g({input:{id:e}})).data?.webhookEventRetry.webhookEvent;t?.deliveries&&b(n=>({...n,[e]:t.deliveries??[]}))}return(0,I.jsxs)(`section`,{"aria-labelledby":`events-heading`,className:`mb-8`,children:[(0,I.jsx)(`h2`,{id:`events-heading`,className:`mb-2 text-xl font-semibold`,children:(0,I.jsx)(o,{id:`developers.events`})}),(0,I.jsx)(s,{error:d}),(0,I.jsx)(s,{error:h.error,userErrors:h.data?.webhookEventRetry.userErrors}),f&&!u?(0,I.jsx)(v,{}):x.length?(0,I.jsx)(`ul`,{className:`space-y-2`,children:x.map(e=>(0,I.jsxs)(`li`,{"data-event-id":e.id,className:`rounded border border-slate-200 bg-white p-3`,children:[(0,I.jsxs)(`div`,{className:`flex flex-wrap items-center gap-x-3 gap-y-1`,children:[(0,I.jsx)(`bdi`,{dir:`ltr`,className:`font-mono text-sm font-medium`,children:e.event}),(0,I.jsx)(m,{value:e.status}),(0,I.jsx)(`span`,{className:`text-sm text-slate-600`,children:(0,I.jsx)(o,{id:`developers.attempts`,values:{n:(0,I.jsx)(w,{value:e.attempts})}})}),(0,I.jsx)(`span`,{className:`text-sm text-slate-600`,children:(0,I.jsx)(C,{iso:e.createdAt})}),(0,I.jsx)(`span`,{className:`text-sm`,children:(0,I.jsx)(S,{children:e.id})}),(0,I.jsxs)(`span`,{className:`ms-auto flex gap-2`,children:[(0,I.jsx)(`button`,{type:`button`,className:_,"aria-expanded":!!y[e.id],onClick:()=>void T(e.id),children:(0,I.jsx)(o,{id:`developers.showAttempts`})}),t&&(0,I.jsx)(`button`,{type:`button`,className:`inline-flex items-center gap-2 rounded border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-50`,disabled:h.fetching,onClick:()=>void E(e.id),"aria-describedby":`ev-${e.id}`,children:(0,I.jsx)(o,{id:`developers.retry`})}),(0,I.jsxs)(`span`,{id:`ev-${e.id}`,className:`sr-only`,children:[e.event,` `,e.id]})]})]}),e.deliveries&&e.deliveries.some(e=>e.lastError)&&(0,I.jsx)(`p`,{className:`mt-1 text-sm text-red-800`,children:e.deliveries.filter(e=>e.lastError).map(e=>(0,I.jsx)(`bdi`,{children:e.lastError},e.id))}),y[e.id]&&(0,I.jsx)(B,{deliveries:y[e.id]})]},e.id))}):(0,I.jsx)(`p`,{className:`rounded border border-slate-200 bg-white p-4`,children:r.formatMessage({id:`developers.noEvents`})}),(0,I.jsxs)(`div`,{className:`mt-3 flex gap-2`,children:[c&&(0,I.jsx)(`button`,{type:`button`,className:`inline-flex items-center gap-2 rounded border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-50`,onClick:()=>l(null),children:(0,I.jsx)(o,{id:`shell.previous`})}),u?.webhookEvents.pageInfo.hasNextPage&&(0,I.jsx)(`button`,{type:`button`,className:`inline-flex items-center gap-2 rounded border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-50`,onClick:()=>l(u.webhookEvents.pageInfo.endCursor??null),children:(0,I.jsx)(o,{id:`shell.next`})})]})]})}function H(){let e=y()(`developersWrite`);return(0,I.jsxs)(c,{titleId:`nav.developers`,actions:(0,I.jsx)(`a`,{className:`${_} ${l}`,href:`/graphql`,children:`GraphiQL`}),children:[(0,I.jsx)(R,{write:e}),(0,I.jsx)(z,{}),(0,I.jsx)(V,{write:e})]})}export{H as default};