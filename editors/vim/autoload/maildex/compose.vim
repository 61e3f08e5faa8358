" SPDX-License-Identifier: GPL-3.0-or-later
" The mail buffer: new mail, replies (headers from `maildex reply --format=json`, the original quoted
" as notmuch.el quotes it), forwards, drafts resumed. :MaildexSend pipes it to g:maildex_sendmail and
" then files the sent copy with `maildex insert` in the sent folder (maildex#folders), and tags the
" replied-to message +replied. :write saves it as a draft, notmuch.el's way: `maildex insert` into
" the drafts folder with +draft, the draft saved before tagged +deleted; sending deletes it too.
" `Attach: FILE` header lines (:MaildexAttach) become attachments when it is sent.
let s:cpo_save = &cpo
set cpo&vim

let s:count = 0

function! s:open(headers, body, meta) abort
  let s:count += 1
  call maildex#util#open_buffer('maildex://compose/' . s:count, 'mail.maildexcompose')
  " written by the plugin, not to a file: :write saves a draft
  setlocal modifiable buftype=acwrite bufhidden=hide
  augroup maildex_compose
    autocmd! * <buffer>
    autocmd BufWriteCmd <buffer> call maildex#compose#write()
  augroup END
  let b:maildex_compose = extend({'sent': 0, 'draft': '', 'replied': ''}, a:meta)
  let l:lines = []
  for [l:name, l:value] in a:headers
    call add(l:lines, l:name . ': ' . l:value)
  endfor
  call maildex#util#set_lines(bufnr('%'), 1, l:lines + [''] + a:body, 1)
  setlocal modifiable nomodified
  let l:to = match(l:lines, '^To: $')
  call cursor(l:to >= 0 ? l:to + 1 : len(l:lines) + 2, l:to >= 0 ? 5 : 1)
  call maildex#address#harvest()
endfunction

" :MaildexCompose [TO]: a new message from the user's address.
function! maildex#compose#new(...) abort
  let l:to = get(a:, 1, '')
  call maildex#config#with({config -> s:open([['From', maildex#config#from(config)], ['To', l:to],
        \ ['Cc', ''], ['Subject', '']], [''], {})})
endfunction

" A reply to the one message QUERY names; ALL answers everybody (reply-all), else the sender.
function! maildex#compose#reply(query, all) abort
  call maildex#transport#run(['reply', '--format=json', '--format-version=5',
        \ '--reply-to=' . (a:all ? 'all' : 'sender'), a:query],
        \ {'on_exit': function('s:replying', [a:query])})
endfunction

function! s:replying(query, status, out, err) abort
  let l:reply = maildex#util#json(a:out)
  if a:status != 0 || type(l:reply) != type({})
    return
  endif
  let l:h = get(l:reply, 'reply-headers', {})
  let l:headers = []
  for l:name in ['From', 'To', 'Cc', 'Bcc', 'Subject', 'In-reply-to', 'References']
    if has_key(l:h, l:name) || l:name ==# 'To'
      call add(l:headers, [l:name ==# 'In-reply-to' ? 'In-Reply-To' : l:name, maildex#util#str(get(l:h, l:name, ''))])
    endif
  endfor
  let l:original = get(l:reply, 'original', {})
  let l:from = maildex#util#str(get(get(l:original, 'headers', {}), 'From', ''))
  let l:date = maildex#util#str(get(get(l:original, 'headers', {}), 'Date', ''))
  let l:body = ['On ' . l:date . ', ' . substitute(l:from, '\s*<[^>]*>$', '', '') . ' wrote:']
  for l:line in s:plain_text(get(l:original, 'body', []))
    call add(l:body, l:line ==# '' ? '>' : '> ' . l:line)
  endfor
  call s:open(l:headers, l:body + [''], {'replied': get(l:original, 'id', '')})
endfunction

" The text/plain parts of a body, as lines (what a reply quotes).
function! s:plain_text(parts) abort
  let l:lines = []
  for l:part in a:parts
    let l:content = get(l:part, 'content', v:null)
    if type(l:content) == type([])
      call extend(l:lines, s:plain_text(l:content))
    elseif type(l:content) == type('') && tolower(get(l:part, 'content-type', '')) ==# 'text/plain'
      let l:text = split(l:content, "\n", 1)
      if !empty(l:text) && l:text[-1] ==# ''
        call remove(l:text, -1)
      endif
      call extend(l:lines, l:text)
    endif
  endfor
  return l:lines
endfunction

" A forward of MSG with its text as the thread shows it (TEXT, the lines below its header line).
function! maildex#compose#forward(msg, text) abort
  let l:subject = maildex#util#str(get(get(a:msg, 'headers', {}), 'Subject', ''))
  let l:from = maildex#util#str(get(get(a:msg, 'headers', {}), 'From', ''))
  let l:indent = matchstr(get(a:text, 0, ''), '^\s*')
  let l:body = ['', '-------------------- Start of forwarded message --------------------', 'From: ' . l:from]
        \ + map(copy(a:text), 'substitute(v:val, "^" . l:indent, "", "")')
        \ + ['-------------------- End of forwarded message --------------------']
  call maildex#config#with({config -> s:open([['From', maildex#config#from(config)], ['To', ''],
        \ ['Cc', ''], ['Subject', '[' . substitute(l:from, '\s*<[^>]*>$', '', '') . '] ' . l:subject]],
        \ l:body, {})})
endfunction

" :MaildexSend: the buffer as a message, to sendmail, then filed and marked.
function! maildex#compose#send() abort
  if !exists('b:maildex_compose')
    return maildex#error#note(':MaildexSend works in a mail buffer')
  endif
  let l:message = maildex#message#build(getline(1, '$'))
  if has_key(l:message, 'error')
    return maildex#error#note(l:message.error)
  endif
  let l:state = b:maildex_compose
  let l:state.buf = bufnr('%')
  let l:sendmail = get(g:, 'maildex_sendmail', ['sendmail', '-t', '-oi'])
  call maildex#transport#run([], {'command': type(l:sendmail) == type([]) ? l:sendmail : [l:sendmail],
        \ 'stdin': l:message.text, 'on_exit': function('s:sent', [l:state, l:message.text])})
  echomsg 'Sending...'
endfunction

function! s:sent(state, message, status, out, err) abort
  if a:status != 0
    return
  endif
  let a:state.sent = 1
  call maildex#config#with(function('s:file', ['sent', a:message, function('s:noop')]))
  if a:state.replied !=# ''
    call maildex#tag#apply(get(g:, 'maildex_replied_tags', ['+replied']),
          \ maildex#util#term('id', a:state.replied), function('s:noop'))
  endif
  call s:forget_draft(a:state)
  call s:close(a:state)
  echomsg 'Message sent'
endfunction

" Files MESSAGE with `maildex insert` as KIND ('sent', 'drafts') says; then DONE(folder), the
" folder '' when it was not filed (the error is reported).
function! s:file(kind, message, done, config) abort
  let l:argv = maildex#folders#insert(a:kind, a:config)
  if empty(l:argv)
    if a:kind ==# 'drafts'
      call maildex#error#note('g:maildex_drafts is empty: drafts are not saved')
    endif
    return a:done('')
  endif
  let l:folder = matchstr(l:argv[2], '^--folder=\zs.*')
  call maildex#transport#run(l:argv, {'stdin': a:message,
        \ 'on_exit': {status, out, err -> a:done(status == 0 ? l:folder : '')}})
endfunction

function! s:close(state) abort
  if bufexists(a:state.buf)
    call setbufvar(a:state.buf, '&modified', 0)
    let l:win = bufwinid(a:state.buf)
    if l:win != -1
      call win_execute(l:win, 'call maildex#util#close()')
    endif
  endif
endfunction

" :write: the buffer saved as a draft, waiting (10 s at most) for it to be in, as writing a file
" does: :wq, :x and ZZ then close a buffer whose draft is safe, and only such a one.
function! maildex#compose#write() abort
  call maildex#compose#save_draft(0)
  let l:state = get(b:, 'maildex_compose', {})
  let l:start = reltime()
  while get(l:state, 'saving', 0) && reltimefloat(reltime(l:start)) < 10.0
    sleep 10m
  endwhile
endfunction

" The buffer saved as a draft (CLOSE: and closed then, CTRL-C CTRL-P), without waiting.
function! maildex#compose#save_draft(close) abort
  if !exists('b:maildex_compose')
    return maildex#error#note('drafts are saved from a mail buffer')
  endif
  let l:draft = maildex#message#draft(getline(1, '$'))
  if has_key(l:draft, 'error')
    return maildex#error#note('the draft was not saved: ' . l:draft.error)
  endif
  let l:state = b:maildex_compose
  let l:state.buf = bufnr('%')
  let l:state.saving = 1
  let l:Done = function('s:draft_saved', [l:state, l:draft.id, b:changedtick, a:close])
  call maildex#config#with(function('s:file', ['drafts', l:draft.text, l:Done]))
endfunction

function! maildex#compose#postpone() abort
  call maildex#compose#save_draft(1)
endfunction

function! s:draft_saved(state, id, tick, close, folder) abort
  let a:state.saving = 0
  if a:folder ==# ''
    return
  endif
  call s:forget_draft(a:state)
  let a:state.draft = a:id
  if bufexists(a:state.buf) && getbufvar(a:state.buf, 'changedtick') == a:tick
    call setbufvar(a:state.buf, '&modified', 0)
  endif
  if a:close
    call s:close(a:state)
  endif
  echomsg 'Draft saved in ' . a:folder
endfunction

" The draft saved before is tagged deleted once a newer one is saved or the message is sent
" (notmuch.el's notmuch-draft--mark-deleted).
function! s:forget_draft(state) abort
  if a:state.draft !=# ''
    call maildex#tag#apply(['+deleted'], maildex#util#term('id', a:state.draft), function('s:noop'))
    let a:state.draft = ''
  endif
endfunction

" e in a thread or a tree: the draft ID in a mail buffer again, as notmuch.el's
" notmuch-draft-resume does it: a message without the draft tag only when the user says so; the
" stored text without the headers saving added; the draft's id kept, so saving again or sending
" tags this one deleted.
function! maildex#compose#resume(id, tags) abort
  let l:draft = index(a:tags, 'draft') >= 0
  if !l:draft && confirm('Message does not appear to be a draft: edit as new?', "&Yes\n&No", 2) != 1
    return
  endif
  call maildex#transport#run(['show', '--format=raw', maildex#util#term('id', a:id)],
        \ {'on_exit': function('s:resuming', [a:id, l:draft])})
endfunction

function! s:resuming(id, draft, status, out, err) abort
  if a:status != 0
    return
  endif
  let [l:headers, l:body] = maildex#message#resume(a:out)
  let l:reply = filter(copy(l:headers), 'tolower(v:val[0]) ==# "in-reply-to"')
  call s:open(l:headers, l:body, {'draft': a:draft ? a:id : '',
        \ 'replied': empty(l:reply) ? '' : matchstr(l:reply[0][1], '<\zs[^>]*\ze>')})
endfunction

" :MaildexAttach FILE...: an `Attach: FILE` line after the headers for each (its absolute path).
function! maildex#compose#attach(...) abort
  if !exists('b:maildex_compose')
    return maildex#error#note(':MaildexAttach works in a mail buffer')
  endif
  for l:file in a:000
    let l:path = fnamemodify(expand(l:file), ':p')
    if !filereadable(l:path)
      call maildex#error#note('cannot attach ' . l:file . ': no such file, or not readable')
      continue
    endif
    let l:end = index(getline(1, '$'), '')
    call append(l:end < 0 ? line('$') : l:end, 'Attach: ' . l:path)
  endfor
endfunction

" CTRL-C CTRL-A: asks for the file (completing file names).
function! maildex#compose#attach_prompt() abort
  let l:file = input('Attach file: ', '', 'file')
  if l:file !=# ''
    call maildex#compose#attach(l:file)
  endif
endfunction

function! s:noop(...) abort
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
